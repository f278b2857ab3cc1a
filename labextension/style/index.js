import './base.css';
import './explorer.css';
