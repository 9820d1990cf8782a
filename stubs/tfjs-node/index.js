// danfojs-node requires @tensorflow/tfjs-node; the workbench gives it the one @tensorflow/tfjs of the tree (the
// project's), so that danfojs and the project share tensors and backends and no second 141 MB copy is installed.
// A real tfjs-node (native libtensorflow) is not used here: see docs/running.md and docs/encoders-and-gpu.md.
'use strict';
module.exports = require('@tensorflow/tfjs');
