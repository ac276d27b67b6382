# fish completion for btcctl(1)
set -l commands status price watch sources ping waybar i3blocks polybar prompt chart wait metrics version help
complete -c btcctl -f
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a status -d 'price, source, age and freshness'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a price -d 'the exact price alone'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a watch -d 'a line per new quote and state change'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a sources -d 'each exchange with its state'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a version -d 'the client version'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a help -d 'this help'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a ping -d 'check that the daemon answers'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a waybar -d 'JSON for a Waybar custom module'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a i3blocks -d 'lines for i3blocks'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a polybar -d 'coloured text for polybar'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a prompt -d 'short form for PS1 and tmux'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a chart -d 'sparkline of the last 1h, 24h or 7d'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a wait -d 'block until the price reaches a threshold'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a metrics -d 'the daemon metrics in Prometheus text format'
complete -c btcctl -l socket -r -F -d 'daemon socket'
complete -c btcctl -l currency -x -a 'eur gbp jpy cad chf aud usd' -d "the btcpriced@CODE instance's socket"
complete -c btcctl -l timeout -x -a '250ms 500ms 1s 2s' -d 'give up after this long'
complete -c btcctl -l json -n "__fish_seen_subcommand_from status watch sources chart" -d "print the daemon's JSON"
complete -c btcctl -l wide -n "__fish_seen_subcommand_from sources" -d "every error whole"
complete -c btcctl -l watch -n "__fish_seen_subcommand_from waybar i3blocks polybar" -d 'stream updates'
complete -c btcctl -l exit-status -n "__fish_seen_subcommand_from waybar i3blocks polybar" -d 'exit 1 or 3 when down or stale'
complete -c btcctl -l min-interval -x -n "__fish_seen_subcommand_from waybar i3blocks polybar" -d 'at most one update per duration (with --watch)'
complete -c btcctl -l strict -n "__fish_seen_subcommand_from prompt" -d 'report errors'
complete -c btcctl -l format -x -n "__fish_seen_subcommand_from price prompt" -d 'template, e.g. {price_short}'
complete -c btcctl -l above -x -n "__fish_seen_subcommand_from waybar i3blocks polybar prompt wait" -d 'price threshold'
complete -c btcctl -l below -x -n "__fish_seen_subcommand_from waybar i3blocks polybar prompt wait" -d 'price threshold'
complete -c btcctl -l symbol -x -a 'BTC XBT' -n "__fish_seen_subcommand_from waybar i3blocks polybar prompt" -d 'shown in place of ₿'
complete -c btcctl -l range -x -a '1h 24h 7d' -n "__fish_seen_subcommand_from chart" -d 'chart range'
complete -c btcctl -l width -x -n "__fish_seen_subcommand_from chart" -d 'chart cells'
complete -c btcctl -l help -d 'print help'
complete -c btcctl -l version -d 'print version'
