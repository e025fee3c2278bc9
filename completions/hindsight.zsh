
#compdef hindsight

_hindsight_completion() {
  eval $(env _TYPER_COMPLETE_ARGS="${words[1,$CURRENT]}" _HINDSIGHT_COMPLETE=complete_zsh hindsight)
}

compdef _hindsight_completion hindsight

