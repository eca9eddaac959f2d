// Writes credentials (the sim's kubeconfig and control token, the endpoint's kubeconfig) so that only the current user
// can read them: mode 0600, into a fresh file that is then renamed over the target, so a symlink or a looser file
// already there is replaced, never followed or reused.
import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export class PrivateFileError extends Error {}

export async function writePrivateFile(file: string, content: string): Promise<void> {
  const dir = dirname(file);
  await checkDirectory(dir);
  const tmp = join(dir, `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx' is O_CREAT|O_EXCL: it fails on anything already at tmp, a symlink included.
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(content);
    await fh.chmod(0o600);
  } catch (err) {
    await fh.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  try {
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    if ((err as NodeJS.ErrnoException).code === 'EISDIR') throw new PrivateFileError(`${file} is a directory: name a file to write`);
    throw err;
  }
}

/**
 * Another user who owns the folder (e.g. a /tmp/kwatch-sim they created first) could swap the file after it is
 * written: refuse such folders, and folders anyone may write to without the sticky bit.
 */
async function checkDirectory(dir: string): Promise<void> {
  const st = await stat(dir);
  if (!st.isDirectory()) throw new PrivateFileError(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid === undefined) return;
  if (st.uid !== uid && st.uid !== 0) throw new PrivateFileError(`${dir} belongs to another user (uid ${st.uid}): choose a folder of your own for the sim's kubeconfig`);
  if ((st.mode & 0o002) !== 0 && (st.mode & 0o1000) === 0) throw new PrivateFileError(`${dir} is writable by every user: choose a folder of your own for the sim's kubeconfig`);
}
