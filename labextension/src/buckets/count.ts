/** How many objects a prefix holds, for the question before deleting them: a walk of its listing,
 * bounded (a huge prefix answers "more than N"). */
import { listObjects } from './api';

const MAX_REQUESTS = 50;

export async function countObjects(bucket: string, prefix: string): Promise<{ count: number; complete: boolean }> {
  const pending: { prefix: string; token?: string }[] = [{ prefix }];
  let count = 0;
  for (let requests = 0; pending.length; requests++) {
    if (requests === MAX_REQUESTS) {
      return { count, complete: false };
    }
    const next = pending.pop()!;
    const page = await listObjects(bucket, next.prefix, next.token);
    count += page.objects.length;
    pending.push(...page.folders.map(folder => ({ prefix: folder.prefix })));
    if (page.nextToken) {
      pending.push({ prefix: next.prefix, token: page.nextToken });
    }
  }
  return { count, complete: true };
}
