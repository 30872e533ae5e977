"""What the agent is asked to do: task files, reference answers, multihop tasks."""
