/** The panel's icon in JupyterLab's left bar: a stack of table disks, drawn in the theme's colours. */
import { LabIcon } from '@jupyterlab/ui-components';

const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="16">
  <g class="jp-icon3" fill="#616161">
    <path d="M12 2C7 2 3 3.6 3 5.5v13C3 20.4 7 22 12 22s9-1.6 9-3.5v-13C21 3.6 17 2 12 2zm0 2c4.2 0 7 1.2 7 1.5S16.2 7 12 7 5 5.8 5 5.5 7.8 4 12 4zm7 14.4c-.3.4-2.9 1.6-7 1.6s-6.7-1.2-7-1.6v-2.6c1.6.8 4.2 1.2 7 1.2s5.4-.4 7-1.2v2.6zm0-4.9c-.3.4-2.9 1.5-7 1.5s-6.7-1.1-7-1.5V11c1.6.8 4.2 1.2 7 1.2s5.4-.4 7-1.2v2.5zm0-4.9c-.3.4-2.9 1.6-7 1.6S5.3 9 5 8.6V7.9c1.6.8 4.2 1.1 7 1.1s5.4-.4 7-1.1v.7z"/>
  </g>
</svg>`;

export const aistorIcon = new LabIcon({ name: 'aistor-lab:panel', svgstr: svg });
