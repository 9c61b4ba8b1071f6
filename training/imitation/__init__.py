"""Starting PPO from a policy instead of from scratch: behaviour cloning of a teacher
(:mod:`.cloning`), and keeping what the start gave while PPO fine-tunes it (:mod:`.finetune`)."""
