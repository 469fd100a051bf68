"""The index finder's network in torch, its loss and its export (``vision.training.finder``).

Fully convolutional, stride 4: two strided 3x3 convolutions (8, 16 channels), a 3x3 and a
dilated 3x3 (16 each, seeing 31 pixels: an index of a 90 px card is about 11 x 20), and a 1x1
head of ``finder.OUTPUTS`` maps and ``DIRECTION_OUTPUTS`` more: the rank-to-suit direction
(cos a, sin a, tanh), learnt where the truth knows it (drawn and theme frames; the photos'
corner boxes do not). The run time reads the first ``OUTPUTS`` maps as before; the direction
maps follow them. About 420 multiply-adds per input pixel.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from vision.recognise.finder import INPUT_NAME, OUTPUT_NAME, OUTPUTS
from vision.training.finder import DIRECTION_TARGET

__all__ = ["DIRECTION_OUTPUTS", "build", "loss_of", "export"]

DIRECTION_OUTPUTS = 2

# A cell with an index middle is rare (one in a few hundred): its heat counts this much more.
POSITIVE_WEIGHT = 4.0


def build(width: int = 16) -> nn.Module:
    """A fresh finder network."""
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(inplace=True),
        nn.Conv2d(8, width, 3, stride=2, padding=1), nn.ReLU(inplace=True),
        nn.Conv2d(width, width, 3, padding=1), nn.ReLU(inplace=True),
        nn.Conv2d(width, width, 3, padding=2, dilation=2), nn.ReLU(inplace=True),
        nn.Conv2d(width, OUTPUTS + DIRECTION_OUTPUTS, 1),
    )


def loss_of(out: torch.Tensor, t: torch.Tensor, direction_weight: float = 0.3
            ) -> tuple[torch.Tensor, list[float]]:
    """The training loss of outputs ``out`` against targets ``t`` (``finder._targets``):
    weighted binary cross-entropy on the heat (a soft Gaussian target), squared error on the
    doubled-angle axis where it is known, on the offsets and the log span near each middle,
    and on the rank-to-suit direction where it is known."""
    heat = t[:, 0]
    weight = 1.0 + POSITIVE_WEIGHT * heat
    h = F.binary_cross_entropy_with_logits(out[:, 0], heat, weight=weight)
    axis_mask, near = t[:, OUTPUTS], t[:, OUTPUTS + 1]
    axis = torch.tanh(out[:, 1:3])
    a = (((axis - t[:, 1:3]) ** 2).sum(1) * axis_mask).sum() / axis_mask.sum().clamp(min=1)
    o = (((out[:, 3:5] - t[:, 3:5]) ** 2).sum(1) * near).sum() / near.sum().clamp(min=1)
    s = (((out[:, 5] - t[:, 5]) ** 2) * near).sum() / near.sum().clamp(min=1)
    way, way_mask = torch.tanh(out[:, OUTPUTS:OUTPUTS + 2]), t[:, DIRECTION_TARGET + 2]
    d = (((way - t[:, DIRECTION_TARGET:DIRECTION_TARGET + 2]) ** 2).sum(1) * way_mask).sum() \
        / way_mask.sum().clamp(min=1)
    loss = h * 10 + 0.5 * a + 0.3 * o + 0.3 * s + direction_weight * d
    return loss, [float(v.detach()) for v in (h, a, o, s, d)]


def export(net: nn.Module, path: Path) -> None:
    """Writes ``net`` as ONNX (opset 13) with free height and width."""
    net.eval()
    dummy = torch.zeros(1, 3, 64, 64)
    torch.onnx.export(net, dummy, str(path), opset_version=13, input_names=[INPUT_NAME],
                      output_names=[OUTPUT_NAME], dynamo=False,
                      dynamic_axes={INPUT_NAME: {2: "h", 3: "w"}, OUTPUT_NAME: {2: "h", 3: "w"}})
