# fish completion for btcpriced(8)
complete -c btcpriced -l config -r -F -d 'config file'
complete -c btcpriced -l state-dir -r -a '(__fish_complete_directories)' -d 'state directory'
complete -c btcpriced -l socket -r -F -d 'socket path'
complete -c btcpriced -l interval -x -a '500ms 1s 2s 5s' -d 'fetch interval'
complete -c btcpriced -l log-level -x -a 'trace debug info notice warning error critical' -d 'log level'
complete -c btcpriced -l check-config -d 'validate the configuration and exit'
complete -c btcpriced -l version -d 'print version'
complete -c btcpriced -l help -d 'print help'
