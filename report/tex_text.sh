# report/tex_text.sh - tex_text TEXT: TEXT as LaTeX text (sourced by
# report/build.sh for the figure captions and the commit id it writes).
#
# The same rule as tex_escape() in core/results (results.h), which escapes
# everything the C programs write: _ % & # $ { } get a backslash; \ ~ ^ < >
# | become \textbackslash{} etc.; control characters become spaces; each
# non-ASCII character becomes '?' (continuation bytes dropped).
# tests/test_tex_escape.c runs this function on every byte and checks that
# both agree, so there is one rule with two spellings.
tex_text() {
  local LC_ALL=C
  local s=$1 out="" c n i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [_%\&#\$\{\}]) out+="\\$c" ;;
      \\) out+='\textbackslash{}' ;;
      '~') out+='\textasciitilde{}' ;;
      '^') out+='\textasciicircum{}' ;;
      '<') out+='\textless{}' ;;
      '>') out+='\textgreater{}' ;;
      '|') out+='\textbar{}' ;;
      *)
        printf -v n '%d' "'$c"
        if [ "$n" -lt 32 ] || [ "$n" -eq 127 ]; then out+=' '
        elif [ "$n" -ge 192 ]; then out+='?'
        elif [ "$n" -lt 128 ]; then out+=$c
        fi ;;
    esac
  done
  printf '%s' "$out"
}
