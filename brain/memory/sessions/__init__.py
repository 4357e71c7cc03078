"""Sessions: the session protocol and turning what agents did (logs, transcripts) into episodes."""
