/** The fish completion script: the same engine as bash.ts, as fish functions. */
import { emitTables, type CompletionModel } from './model.js';

/** Single-quotes a value for fish (which escapes only \ and '). */
function fishQuote(s: string): string {
  return `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

const ENGINE = String.raw`
function __svc_var --argument-names kind key
    set -l n __svc_$kind"_"$key
    set -q $n; and printf '%s\n' $$n
end

function __svc_key
    set -l k (string replace -a -- - _ "$argv[1]")
    set k (string replace -a -- ' ' __ "$k")
    test -n "$k"; and echo $k; or echo root
end

function __svc_vkind --argument-names p opt
    for e in (__svc_var V (__svc_key "$p")) $__svc_V_root
        set -l parts (string split -m 1 : -- $e)
        if test "$parts[1]" = "$opt"
            echo $parts[2]
            return
        end
    end
end

function __svc_words --argument-names kind cmd
    switch $kind
        case 'choices:*'
            __svc_var choices (string replace -- 'choices:' '' $kind)
        case events event type
            __svc_var $kind all
        case filter sort attr fields include rel match
            __svc_var $kind (__svc_key "$cmd")
            set -l dir "$SVC_CONFIG_DIR"
            if test -z "$dir"
                set dir "$XDG_CONFIG_HOME"
                test -n "$dir"; or set dir $HOME/.config
                set dir $dir/svc
            end
            if test -r $dir/completion-extra.txt
                string replace -r -f -- '^'(string escape --style=regex -- "$cmd $kind")' (\S+)$' '$1' <$dir/completion-extra.txt
            end
    end
end

function __svc_values --argument-names kind cmd cur
    # The token as typed keeps its escapes (My\ Files/, a quote): the path is the unescaped text.
    if test "$kind" = file
        __fish_complete_path (string unescape -- "$cur")
        return
    end
    # --data: JSON, or @file (file names after the @), or - for stdin.
    if test "$kind" = data
        if string match -q -- '@*' "$cur"
            __fish_complete_path (string sub -s 2 -- (string unescape -- "$cur")) | string replace -r -- '^' '@'
        end
        return
    end
    test "$kind" = none; and return
    set -l pre ''
    set -l last "$cur"
    if contains -- $kind sort fields include events; and string match -q -- '*,*' "$cur"
        set pre (string replace -r -- '[^,]*$' '' "$cur")
        set last (string replace -r -- '^.*,' '' "$cur")
    end
    if test "$kind" = sort; and string match -q -- '-*' "$last"
        set pre "$pre-"
    end
    # name=value kinds: the name completes with its = (fish adds no space after a trailing =).
    set -l suf ''
    contains -- $kind filter attr rel; and set suf '='
    for w in (__svc_words $kind "$cmd")
        printf '%s%s%s\n' "$pre" $w $suf
    end
end

function __svc_complete
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cur (commandline -ct)
    set -l cpath ''
    set -l cmd ''
    set -l npos 0
    set -l expect ''
    set -l optional ''
    for w in $tokens
        if test -n "$expect"
            set expect ''
            continue
        end
        # After an option with an optional value (--json): a field list that is no command word is its value.
        if test -n "$optional"
            set optional ''
            if test -n "$cpath"; and string match -qr -- '^[A-Za-z_][A-Za-z0-9_.,-]*$' $w; and not contains -- $w (__svc_var S (__svc_key "$cpath"))
                continue
            end
        end
        switch $w
            case '--*=*'
                continue
            case '-*'
                set expect (__svc_vkind "$cpath" $w)
                if test (string sub -l 1 -- "$expect") = '?'
                    set optional (string sub -s 2 -- "$expect")
                    set expect ''
                end
                continue
        end
        if test -z "$cpath"
            set cmd (__svc_canon $w)
            set cpath $cmd
        else if contains -- $w (__svc_var S (__svc_key "$cpath"))
            set cpath "$cpath $w"
        else
            set npos (math $npos + 1)
        end
    end
    if test -n "$expect"
        __svc_values $expect "$cmd" "$cur"
        return
    end
    set -l key (__svc_key "$cpath")
    if string match -q -- '-*' "$cur"
        printf '%s\n' (__svc_var O $key) $__svc_O_root
        return
    end
    set -l subs (__svc_var S $key)
    if test (count $subs) -gt 0 -a $npos -eq 0
        set -l descs (__svc_var D $key)
        for i in (seq (count $subs))
            printf '%s\t%s\n' $subs[$i] $descs[$i]
        end
        return
    end
    if test -n "$optional" -a -n "$cpath"
        __svc_values $optional "$cmd" "$cur"
        return
    end
    set -l kinds (__svc_var A $key)
    set -l kind none
    test (count $kinds) -gt $npos; and set kind $kinds[(math $npos + 1)]
    test "$kind" != none; and __svc_values $kind "$cmd" "$cur"
end

complete -c svc -e
complete -c svc -f -a '(__svc_complete)'
`;

/** Renders the fish script. */
export function renderFish(m: CompletionModel): string {
  const out: string[] = [
    '# fish completion for svc — generated by `svc completion fish`; do not edit (regenerate: npm run completions).',
    '# Install: svc completion fish > ~/.config/fish/completions/svc.fish',
    '',
  ];
  const v = (name: string, words: readonly string[]) => out.push(`set -g __svc_${name} ${words.map(fishQuote).join(' ')}`);
  out.push('function __svc_canon', '    switch $argv[1]');
  for (const [a, c] of Object.entries(m.aliases)) out.push(`        case ${fishQuote(a)}`, `            echo ${fishQuote(c)}`);
  out.push(`        case '*'`, '            echo $argv[1]', '    end', 'end');
  emitTables(m, v, (key, subs) =>
    v(
      `D_${key}`,
      subs.map((s) => s.description.replace(/\s+/g, ' ')),
    ),
  );
  out.push(ENGINE);
  return out.join('\n');
}
