// The scripts `kwatch completion SHELL` prints. Each one only asks `kwatch __complete WORDS… CURRENT` for
// the candidates and acts on cobra's directive bits, so everything kwatch knows (commands, flags, values,
// the cluster) is decided in one place, in TypeScript, for every shell.
import { Directive } from './directive.js';

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

const { Error: ERROR, NoSpace: NO_SPACE, NoFileComp: NO_FILE_COMP, FilterFileExt: FILE_EXT, FilterDirs: DIRS } = Directive;

/** A shell function name from the program's name (kwatch → _kwatch_complete). */
function fn(bin: string): string {
  return `_${bin.replace(/[^A-Za-z0-9_]/g, '_')}_complete`;
}

function bash(bin: string): string {
  const f = fn(bin);
  return `# bash completion for ${bin}: source <(${bin} completion bash)
${f}() {
  local line="\${COMP_LINE:0:COMP_POINT}" words=() out directive cur
  # Split the line ourselves: bash's own words break at = and :, which --output=json and label:app contain.
  read -r -a words <<<"$line"
  if [[ -z "$line" || "$line" =~ [[:space:]]$ ]]; then cur=""; else cur="\${words[\${#words[@]}-1]}"; unset 'words[\${#words[@]}-1]'; fi
  out="$("\${words[0]}" __completeNoDesc "\${words[@]:1}" "$cur" 2>/dev/null)" || return 0
  directive="\${out##*:}"
  [[ "$directive" =~ ^[0-9]+$ ]] || return 0
  out="\${out%:*}"
  (( directive & ${ERROR} )) && return 0
  # For --flag=value the candidates are values: match them against the value typed.
  local candidates=() c typed="$cur"
  [[ "$cur" == --*=* ]] && typed="\${cur#*=}"
  while IFS= read -r c; do [[ -n "$c" && "$c" == "$typed"* ]] && candidates+=("$c"); done <<<"$out"
  if (( directive & ${FILE_EXT} )); then
    local ext; ext="$(IFS='|'; echo "\${candidates[*]}")"
    mapfile -t COMPREPLY < <(compgen -f -X "!*.@($ext)" -- "$cur"); compopt -o filenames 2>/dev/null; return 0
  fi
  if (( directive & ${DIRS} )); then
    mapfile -t COMPREPLY < <(compgen -d -- "$cur"); compopt -o filenames 2>/dev/null; return 0
  fi
  (( directive & ${NO_SPACE} )) && compopt -o nospace 2>/dev/null
  if (( \${#candidates[@]} == 0 )) && ! (( directive & ${NO_FILE_COMP} )); then compopt -o default 2>/dev/null; COMPREPLY=(); return 0; fi
  # bash replaces only its own current word, which starts after the last = or : of ours.
  local word="\${COMP_WORDS[COMP_CWORD]}" drop=""
  [[ "$word" == "=" || "$word" == ":" ]] && word=""
  drop="\${typed:0:\${#typed}-\${#word}}"
  COMPREPLY=()
  for c in "\${candidates[@]}"; do COMPREPLY+=("\${c#"$drop"}"); done
}
complete -F ${f} ${bin}
`;
}

function zsh(bin: string): string {
  const f = fn(bin);
  return `#compdef ${bin}
# zsh completion for ${bin}: source <(${bin} completion zsh)   (after compinit)
${f}() {
  local out directive line value desc prefix=""
  local -a lines candidates
  local cur="\${words[CURRENT]}"
  out="$(\${words[1]} __complete "\${(@)words[2,CURRENT-1]}" "$cur" 2>/dev/null)" || return 1
  lines=("\${(@f)out}")
  directive="\${lines[-1]#:}"
  [[ "$directive" == <-> ]] || return 1
  lines=("\${(@)lines[1,-2]}")
  (( directive & ${ERROR} )) && return 1
  if (( directive & ${FILE_EXT} )); then _files -g "*.(\${(j:|:)lines})"; return; fi
  if (( directive & ${DIRS} )); then _files -/; return; fi
  # A --flag=value word: the candidates are the values; keep the --flag= before them.
  [[ "$cur" == --*=* ]] && prefix="\${cur%%=*}="
  for line in "\${lines[@]}"; do
    [[ -z "$line" ]] && continue
    value="\${line%%$'\\t'*}"; desc=""
    [[ "$line" == *$'\\t'* ]] && desc="\${line#*$'\\t'}"
    candidates+=("\${value//:/\\\\:}\${desc:+:$desc}")
  done
  if (( \${#candidates} == 0 )); then
    (( directive & ${NO_FILE_COMP} )) || _files
    return
  fi
  local -a opts
  (( directive & ${NO_SPACE} )) && opts+=(-S '')
  [[ -n "$prefix" ]] && opts+=(-P "$prefix")
  _describe -t ${bin}-candidates '${bin}' candidates "\${opts[@]}"
}
compdef ${f} ${bin}
`;
}

function fish(bin: string): string {
  const f = `__${bin.replace(/[^A-Za-z0-9_]/g, '_')}_complete`;
  return `# fish completion for ${bin}: ${bin} completion fish | source
function ${f}
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l out (command $tokens[1] __complete $tokens[2..-1] "$cur" 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    string match -qr '^[0-9]+$' -- $directive; or return
    set -e out[-1]
    function __bit -a value bit
        test (math "floor($value / $bit) % 2") -eq 1
    end
    __bit $directive ${ERROR}; and return
    if __bit $directive ${DIRS}
        __fish_complete_directories $cur
        return
    end
    # A --flag=value word: the candidates are the values; fish wants the whole word back.
    set -l prefix ""
    string match -qr -- '^--[^=]+=' $cur; and set prefix (string replace -r -- '=.*' '=' $cur)
    set -l n 0
    for line in $out
        test -n "$line"; or continue
        set n (math $n + 1)
        echo "$prefix$line"
    end
    if test $n -eq 0; and not __bit $directive ${NO_FILE_COMP}
        __fish_complete_path $cur
    end
end
complete -c ${bin} -f -a '(${f})'
`;
}

function powershell(bin: string): string {
  return `# PowerShell completion for ${bin}: ${bin} completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName '${bin}' -ScriptBlock {
    param($WordToComplete, $CommandAst, $CursorPosition)
    $line = $CommandAst.Extent.Text
    $upTo = $CursorPosition - $CommandAst.Extent.StartOffset
    if ($upTo -lt $line.Length) { $line = $line.Substring(0, $upTo) }
    $words = @($line -split '\\s+' | Where-Object { $_ -ne '' })
    $program = $words[0]
    $before = @()
    if ($words.Count -gt 1) { $before = $words[1..($words.Count - 1)] }
    if ($WordToComplete -ne '' -and $before.Count -gt 0) { $before = @($before | Select-Object -SkipLast 1) }
    # Before PowerShell 7.3 an empty argument is dropped on its way to a native program.
    $current = $WordToComplete
    if ($current -eq '' -and $PSVersionTable.PSVersion -lt [version]'7.3') { $current = '""' }
    $out = @(& $program __complete @before $current 2>$null)
    if ($out.Count -eq 0) { return }
    $directive = 0
    if (-not [int]::TryParse(($out[-1] -replace '^:', ''), [ref]$directive)) { return }
    if ($directive -band ${ERROR}) { return }
    $prefix = ''
    if ($WordToComplete -match '^(--[^=]+=)') { $prefix = $Matches[1] }
    $results = @()
    foreach ($entry in $out[0..($out.Count - 2)]) {
        if ($entry -eq '' -or $out.Count -lt 2) { continue }
        $parts = $entry -split "\`t", 2
        $value = $prefix + $parts[0]
        $tip = if ($parts.Count -gt 1 -and $parts[1]) { $parts[1] } else { $parts[0] }
        $results += [System.Management.Automation.CompletionResult]::new($value, $parts[0], 'ParameterValue', $tip)
    }
    if ($results.Count -eq 0 -and -not ($directive -band ${NO_FILE_COMP})) {
        # Fall back to file names, as the shell would without a completer.
        return [System.Management.Automation.CompletionCompleters]::CompleteFilename($WordToComplete)
    }
    $results
}
`;
}

export function completionScript(shell: Shell, bin: string): string {
  switch (shell) {
    case 'bash':
      return bash(bin);
    case 'zsh':
      return zsh(bin);
    case 'fish':
      return fish(bin);
    case 'powershell':
      return powershell(bin);
  }
}
