"""One-off studies that chose something brain ships (the fusion, the chunk context, the embedder):
kept so that the choice can be measured again, not run after every change."""
