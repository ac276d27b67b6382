# fish completion for btcctl(1)
set -l commands status price watch sources ping waybar i3blocks prompt version
complete -c btcctl -f
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a status -d 'price, source, age and freshness'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a price -d 'the exact price alone'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a watch -d 'a line per new quote and state change'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a sources -d 'each exchange with its state'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a version -d 'the client version'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a ping -d 'check that the daemon answers'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a waybar -d 'JSON for a Waybar custom module'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a i3blocks -d 'lines for i3blocks and polybar'
complete -c btcctl -n "not __fish_seen_subcommand_from $commands" -a prompt -d 'short form for PS1 and tmux'
complete -c btcctl -l socket -r -F -d 'daemon socket'
complete -c btcctl -l timeout -x -a '250ms 500ms 1s 2s' -d 'give up after this long'
complete -c btcctl -l json -n "__fish_seen_subcommand_from status watch sources" -d "print the daemon's JSON"
complete -c btcctl -l watch -n "__fish_seen_subcommand_from waybar i3blocks" -d 'stream updates'
complete -c btcctl -l exit-status -n "__fish_seen_subcommand_from waybar i3blocks" -d 'exit 1 or 3 when down or stale'
complete -c btcctl -l min-interval -x -n "__fish_seen_subcommand_from waybar i3blocks" -d 'at most one update per duration (with --watch)'
complete -c btcctl -l strict -n "__fish_seen_subcommand_from prompt" -d 'report errors'
complete -c btcctl -l format -x -n "__fish_seen_subcommand_from price prompt" -d 'template, e.g. {price_short}'
complete -c btcctl -l help -d 'print help'
complete -c btcctl -l version -d 'print version'
