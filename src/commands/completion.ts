// kwatch completion SHELL: print the shell's completion script (it asks `kwatch __complete` for candidates).
import { Args, Command, Errors } from '@oclif/core';
import { isParseError, parseErrorMessage, type OclifParseError } from '../cli/parse-error.js';
import { completionScript, SHELLS, type Shell } from '../cli/completion/shell-scripts.js';

export default class Completion extends Command {
  static override summary = 'Print the shell completion script for bash, zsh, fish or powershell.';
  static override description = `The script completes commands, flags, flag values (-o, --stages, --fifo, --by, --writes, …), resource types from the discovery cache shared with kubectl, and namespaces and object names from the server (asked with a 5 s deadline; nothing is offered when it does not answer). It calls the hidden \`kwatch __complete\` command, which speaks the protocol of cobra and kubectl: \`kubectl kwatch <TAB>\` works through bin/kubectl_complete-kwatch (kubectl 1.26+) with kubectl's own completion loaded.`;
  static override examples = [
    'source <(<%= config.bin %> completion bash)                  # bash: add to ~/.bashrc',
    'source <(<%= config.bin %> completion zsh)                   # zsh: add to ~/.zshrc, after compinit',
    '<%= config.bin %> completion fish > ~/.config/fish/completions/<%= config.bin %>.fish',
    '<%= config.bin %> completion powershell | Out-String | Invoke-Expression   # PowerShell: add to $PROFILE',
  ];
  static override args = {
    shell: Args.string({ description: 'The shell to print the script for.', options: [...SHELLS], required: true }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(Completion);
    // The script names the program the user types: `kwatch` (kubectl drives `kubectl kwatch` itself).
    process.stdout.write(completionScript(args.shell as Shell, 'kwatch'));
  }

  protected override async catch(err: Error & { exitCode?: number }): Promise<any> {
    if (err instanceof Errors.ExitError || !isParseError(err)) throw err;
    // `completion nope` or a missing shell: one line, as every kwatch command reports bad input.
    const shells = /Expected .* to be one of/.test(err.message) ? `unknown shell: use one of ${SHELLS.join(', ')}` : parseErrorMessage(err as OclifParseError, { bin: this.config.bin, id: this.id ?? 'completion', flagNames: [] });
    process.stderr.write(`error: ${shells}\n`);
    this.exit(1);
  }
}
