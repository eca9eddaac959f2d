// Opens a URL or file in the user's browser where there is one (a desktop session on Linux, always on macOS and
// Windows); says whether it tried, so the caller prints the address either way.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

function onPath(cmd: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, cmd)));
}

export function openInBrowser(target: string): boolean {
  let cmd: string;
  let args: string[];
  if (process.platform === 'darwin') [cmd, args] = ['open', [target]];
  else if (process.platform === 'win32') [cmd, args] = ['cmd', ['/c', 'start', '', target]];
  else {
    if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return false;
    if (!onPath('xdg-open')) return false;
    [cmd, args] = ['xdg-open', [target]];
  }
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
