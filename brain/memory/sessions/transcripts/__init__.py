"""Agent transcripts on disk, read into acts: which format a file is, and each agent's reader."""
