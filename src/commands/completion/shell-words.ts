/** Shell text the bash and zsh scripts share (escaped as their engines are: `\$` for `$`). */

/**
 * `_svc_words KIND COMMAND`: the words of a value kind for a resource command, plus the org-only
 * fields `svc schema pull` wrote. The same in both shells but for `printWord`, the command that
 * prints one word `$n` after a space.
 */
export function svcWordsFunction(printWord: string): string {
  return String.raw`_svc_words() {
  case "$1" in
    choices:*) _svc_var choices "\${1#choices:}" ;;
    events|event|type) _svc_var "$1" all ;;
    filter|sort|attr|fields|include|rel|match)
      _svc_var "$1" "$(_svc_key "$2")"
      local f="\${SVC_CONFIG_DIR:-\${XDG_CONFIG_HOME:-$HOME/.config}/svc}/completion-extra.txt" c k n
      [[ -r "$f" ]] && while read -r c k n; do [[ "$c" == "$2" && "$k" == "$1" ]] && ${printWord}; done < "$f" ;;
  esac
}`;
}
