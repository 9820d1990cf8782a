import { EoError } from '../errors';

/**
 * A minimal ONNX model writer: just enough of the ONNX protobuf schema (onnx/onnx.proto, IR version 8) to
 * describe a small float32 graph — named inputs and outputs, float32/int64 initializers and nodes with int,
 * float and int-list attributes — so that a model held in JavaScript arrays (e.g. NN-SSC's MLP, USE-lite's
 * transformer) can run on onnxruntime-node's CPU kernels without a protobuf library. Field numbers below are
 * those of onnx.proto.
 */

/** ONNX `TensorProto.DataType` values used here. */
export const ONNX_FLOAT = 1;
export const ONNX_INT64 = 7;
/** `TensorProto.DataType` INT32 (graph inputs only here, e.g. Gather indices). */
export const ONNX_INT32 = 6;

/** One graph input or output: a name, an element type and a shape (a string is a symbolic dimension). */
export interface OnnxValueInfo {
  name: string;
  /** `ONNX_FLOAT`, `ONNX_INT64` or `ONNX_INT32`. */
  elemType: number;
  shape: (number | string)[];
}

/** A constant tensor stored in the model. */
export interface OnnxInitializer {
  name: string;
  dims: number[];
  data: Float32Array | BigInt64Array;
}

/**
 * A node attribute value: a JS integer is an INT (e.g. `axis`, `to`), `{ f }` a FLOAT (e.g. `epsilon`), an array
 * of integers an INTS (e.g. `perm`, `axes`).
 */
export type OnnxAttribute = number | { f: number } | number[];

/** One operator (default ONNX domain). */
export interface OnnxNode {
  opType: string;
  inputs: string[];
  outputs: string[];
  name?: string;
  /** Attributes by name. Default none. */
  attributes?: Record<string, OnnxAttribute>;
}

export interface OnnxGraph {
  name: string;
  nodes: OnnxNode[];
  initializers: OnnxInitializer[];
  inputs: OnnxValueInfo[];
  outputs: OnnxValueInfo[];
  /** Default-domain opset. Default 17. */
  opset?: number;
}

/** Growable byte buffer with protobuf primitives (varint, length-delimited fields). */
class ProtoWriter {
  private buf = new Uint8Array(256);
  private len = 0;

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  varint(v: number | bigint): void {
    let x = BigInt.asUintN(64, BigInt(v));
    this.ensure(10);
    do {
      let byte = Number(x & 0x7fn);
      x >>= 7n;
      if (x !== 0n) byte |= 0x80;
      this.buf[this.len++] = byte;
    } while (x !== 0n);
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  /** A varint field (wire type 0). */
  int(field: number, v: number | bigint): void {
    this.varint(field << 3);
    this.varint(v);
  }

  /** A 32-bit field (wire type 5) holding a float32, little-endian. */
  float32(field: number, v: number): void {
    this.varint((field << 3) | 5);
    this.ensure(4);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 4).setFloat32(0, v, true);
    this.len += 4;
  }

  /** A length-delimited field (wire type 2): bytes, a string or an embedded message. */
  lenField(field: number, payload: Uint8Array | string | ProtoWriter): void {
    const b = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload instanceof ProtoWriter ? payload.finish() : payload;
    this.varint((field << 3) | 2);
    this.varint(b.length);
    this.bytes(b);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

function valueInfo(v: OnnxValueInfo): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of v.shape) {
    const dim = new ProtoWriter();
    if (typeof d === 'string') dim.lenField(2, d); // dim_param
    else dim.int(1, d); // dim_value
    shape.lenField(1, dim);
  }
  const tensorType = new ProtoWriter();
  tensorType.int(1, v.elemType);
  tensorType.lenField(2, shape);
  const type = new ProtoWriter();
  type.lenField(1, tensorType);
  const out = new ProtoWriter();
  out.lenField(1, v.name);
  out.lenField(2, type);
  return out;
}

/** `AttributeProto.AttributeType` values. */
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_INTS = 7;

function attributeProto(name: string, v: OnnxAttribute, node: string): ProtoWriter {
  const out = new ProtoWriter();
  out.lenField(1, name);
  const bad = () => new EoError('INVALID_ARGUMENT', `ONNX node ${node}: attribute ${name} must be an integer, { f: number } or an integer list, got ${JSON.stringify(v)}`);
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw bad();
    out.int(3, v); // i
    out.int(20, ATTR_INT);
  } else if (Array.isArray(v)) {
    if (!v.every(Number.isInteger)) throw bad();
    for (const x of v) out.int(8, x); // ints (unpacked: proto2)
    out.int(20, ATTR_INTS);
  } else if (v && typeof v.f === 'number') {
    out.float32(2, v.f); // f
    out.int(20, ATTR_FLOAT);
  } else throw bad();
  return out;
}

function tensorProto(t: OnnxInitializer): ProtoWriter {
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (count !== t.data.length) throw new EoError('INVALID_ARGUMENT', `ONNX initializer ${t.name}: dims ${t.dims.join('×')} hold ${count} values, data has ${t.data.length}`);
  const out = new ProtoWriter();
  for (const d of t.dims) out.int(1, d);
  out.int(2, t.data instanceof Float32Array ? ONNX_FLOAT : ONNX_INT64);
  out.lenField(8, t.name);
  // raw_data is little-endian; so are the typed arrays on every platform Node runs on
  out.lenField(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return out;
}

/** Serialise a graph as an ONNX `ModelProto` (IR version 8), ready for `InferenceSession.create(bytes)`. */
export function encodeOnnxModel(g: OnnxGraph): Uint8Array {
  const graph = new ProtoWriter();
  g.nodes.forEach((n, i) => {
    const node = new ProtoWriter();
    for (const s of n.inputs) node.lenField(1, s);
    for (const s of n.outputs) node.lenField(2, s);
    node.lenField(3, n.name ?? `${n.opType.toLowerCase()}_${i}`);
    node.lenField(4, n.opType);
    for (const [k, v] of Object.entries(n.attributes ?? {})) node.lenField(5, attributeProto(k, v, n.name ?? n.opType));
    graph.lenField(1, node);
  });
  graph.lenField(2, g.name);
  for (const t of g.initializers) graph.lenField(5, tensorProto(t));
  for (const v of g.inputs) graph.lenField(11, valueInfo(v));
  for (const v of g.outputs) graph.lenField(12, valueInfo(v));
  const opset = new ProtoWriter();
  opset.lenField(1, '');
  opset.int(2, g.opset ?? 17);
  const model = new ProtoWriter();
  model.int(1, 8); // ir_version
  model.lenField(2, 'eo-workbench'); // producer_name
  model.lenField(7, graph);
  model.lenField(8, opset);
  return model.finish();
}

/** The `onnxruntime-node` module (its CPU binaries ship in the package); null when it cannot be loaded. */
export function loadOnnxRuntime(): typeof import('onnxruntime-node') | null {
  try {
    return require('onnxruntime-node') as typeof import('onnxruntime-node');
  } catch {
    return null;
  }
}
