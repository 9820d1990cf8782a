// Never loaded in Node: @huggingface/transformers' Node build bundles its own onnxruntime-web code and runs models on
// onnxruntime-node. The 141 MB package (browser WebAssembly builds) is not installed; a caller that does load it
// learns why instead of getting a half-working module.
'use strict';
throw new Error('onnxruntime-web is not installed in the EO Workbench (a browser runtime; Node uses onnxruntime-node): see docs/running.md, "A lighter install"');
