"""Adds the hidden layer as a second output, ``embedding``, to an exported corner-index model.

Deck teaching (``vision.recognise.deck``) compares a frame's index patches with the taught
deck's by the network's 128-unit hidden layer, so the model must expose it.
``train.py`` now exports both outputs; this rewrites an older single-output
file in place once, without retraining, so the committed weights (and every
number measured with them) stay exactly the same::

    /tmp/venv-train/bin/python -m vision.training.add_embedding_output [MODEL.onnx]

Needs the ``onnx`` package (training requirements only; the device never
imports it). Output 0 stays ``logits``, bit for bit: the graph only gains an
``Identity`` of the existing hidden activation.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import onnx
from onnx import TensorProto, helper

from vision.recognise.classifier import EMBEDDING_OUTPUT, LOGITS_OUTPUT, MODEL_PATH


def hidden_activation(graph: onnx.GraphProto) -> str:
    """The output name of the ReLU feeding the last Gemm (the rank + suit logits)."""
    producers = {out: node for node in graph.node for out in node.output}
    last = producers.get(LOGITS_OUTPUT)
    if last is None or last.op_type != "Gemm":
        raise ValueError(f"expected output {LOGITS_OUTPUT!r} to come from a Gemm, not {last}")
    hidden = producers.get(last.input[0])
    if hidden is None or hidden.op_type != "Relu":
        raise ValueError(f"expected a Relu before the last Gemm, not {hidden}")
    return str(hidden.output[0])


def add_embedding_output(model: onnx.ModelProto) -> onnx.ModelProto:
    """Returns a copy of ``model`` with ``embedding`` (n, hidden) as its second output."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    graph = out.graph
    if [o.name for o in graph.output] == [LOGITS_OUTPUT, EMBEDDING_OUTPUT]:
        return out
    if [o.name for o in graph.output] != [LOGITS_OUTPUT]:
        raise ValueError(f"expected one output {LOGITS_OUTPUT!r}, found "
                         f"{[o.name for o in graph.output]}")
    source = hidden_activation(graph)
    weights = {t.name: t for t in graph.initializer}
    gemm = next(n for n in graph.node if LOGITS_OUTPUT in n.output)
    # Gemm weight is (19, hidden) with transB=1 as torch exports Linear.
    width = int(weights[gemm.input[1]].dims[1])
    graph.node.append(helper.make_node("Identity", [source], [EMBEDDING_OUTPUT],
                                       name="embedding_identity"))
    graph.output.append(helper.make_tensor_value_info(EMBEDDING_OUTPUT, TensorProto.FLOAT,
                                                      ["n", width]))
    onnx.checker.check_model(out)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path, nargs="?", default=MODEL_PATH)
    args = ap.parse_args()
    model = add_embedding_output(onnx.load(str(args.model)))
    onnx.save(model, str(args.model))
    print(f"wrote {args.model}: outputs {[o.name for o in model.graph.output]}")


if __name__ == "__main__":
    main()
