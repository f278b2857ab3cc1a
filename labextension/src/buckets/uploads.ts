/** The uploads of this panel: what each sends, how far it got, and how it ended. */
import { uploadObject } from './transfer';
import { IUploaded } from './types';

export interface IUpload {
  id: number;
  bucket: string;
  key: string;
  loaded: number;
  total: number;
  state: 'running' | 'done' | 'failed';
  error?: string;
}

export class Uploads {
  readonly items: IUpload[] = [];

  /** `changed` runs on every progress event, so the views redraw the bars. */
  constructor(private readonly changed: () => void) {}

  /** Sends `file` to `bucket/key`; answers the service's answer, or null when it failed. */
  async upload(bucket: string, key: string, file: Blob): Promise<IUploaded | null> {
    const item: IUpload = { id: ++this.counter, bucket, key, loaded: 0, total: file.size, state: 'running' };
    this.items.push(item);
    this.changed();
    try {
      const uploaded = await uploadObject(bucket, key, file, (loaded, total) => {
        item.loaded = loaded;
        item.total = total;
        this.changed();
      });
      item.loaded = item.total;
      item.state = 'done';
      return uploaded;
    } catch (error) {
      item.state = 'failed';
      item.error = error instanceof Error ? error.message : String(error);
      return null;
    } finally {
      this.changed();
    }
  }

  /** Forgets the uploads that ended. */
  clearFinished(): void {
    const running = this.items.filter(item => item.state === 'running');
    this.items.splice(0, this.items.length, ...running);
    this.changed();
  }

  private counter = 0;
}
