# bash completion for btcctl(1)
_btcctl() {
    local cur prev words cword
    _init_completion || return
    local commands="status price watch sources prices ping waybar i3blocks polybar prompt chart history wait convert alert metrics version help"
    case $prev in
        --socket) _filedir; return ;;
        --currency) COMPREPLY=($(compgen -W "eur gbp jpy cad chf aud usd" -- "$cur")); return ;;
        --timeout) COMPREPLY=($(compgen -W "250ms 500ms 1s 2s 5s" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "'{price}' '{price_short}' '{price_grouped}' '₿{price_short}{stale}' '{arrow}{change_24h}%' '{spark}'" -- "$cur")); return ;;
        --range) COMPREPLY=($(compgen -W "1h 24h 7d 1y" -- "$cur")); return ;;
        --unit) COMPREPLY=($(compgen -W "sats fiat" -- "$cur")); return ;;
        --band) COMPREPLY=($(compgen -W "0.5% 1% 2%" -- "$cur")); return ;;
        --exec) COMPREPLY=($(compgen -c -- "$cur")); return ;;
        --thresholds) COMPREPLY=($(compgen -W "below- above-" -- "$cur")); return ;;
        --width|--above|--below) return ;;
    esac
    local command="" word
    for word in "${words[@]:1:cword-1}"; do
        case $word in status|price|watch|sources|prices|ping|waybar|i3blocks|polybar|prompt|chart|history|wait|convert|alert|metrics|version|help) command=$word ;; esac
    done
    local options="--socket --currency --timeout --help --version"
    case $command in
        status|watch) options+=" --json --unit" ;;
        sources) options+=" --json --wide" ;;
        prices) options+=" --json" ;;
        price) options+=" --format --unit" ;;
        waybar|i3blocks|polybar) options+=" --watch --exit-status --min-interval --above --below --symbol --unit" ;;
        prompt) options+=" --strict --format --above --below --symbol --unit" ;;
        convert) options+=" --json"; [ "$cword" -ge 3 ] && options+=" btc sats usd eur" ;;
        alert) options+=" --above --below --band --exec --notify --thresholds --move --within --up --down" ;;
        chart) options+=" --range --width --json" ;;
        history) options+=" --daily --since --csv --faraday --json --at" ;;
        wait) options+=" --above --below" ;;
        "") COMPREPLY=($(compgen -W "$commands $options" -- "$cur")); return ;;
    esac
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
}
complete -F _btcctl btcctl

# bash completion for btcpriced(8)
_btcpriced() {
    local cur prev words cword
    _init_completion || return
    case $prev in
        --config|--socket) _filedir; return ;;
        --state-dir) _filedir -d; return ;;
        --interval) COMPREPLY=($(compgen -W "500ms 1s 2s 5s" -- "$cur")); return ;;
        --log-level) COMPREPLY=($(compgen -W "trace debug info notice warning error critical" -- "$cur")); return ;;
    esac
    COMPREPLY=($(compgen -W "--config --state-dir --socket --interval --log-level --check-config --version --help" -- "$cur"))
}
complete -F _btcpriced btcpriced
