"""Recurrent layers (RNN, LSTM, GRU and their cells) with PyTorch's parameter names, shapes, initialization
and gate order (LSTM i, f, g, o; GRU r, z, n with r applied to W_hn h + b_hn). Composed of recorded ops: the
input projection of a whole layer is one GEMM, each time step one GEMM plus the gate arithmetic. On CUDA the
layers can instead run as one fused cuDNN op (_C._cudnn_rnn, as PyTorch does), and so can a float32 LSTM on the
CPU, through oneDNN's LSTM primitive (PyTorch's CPU LSTM runs the same one), see _use_cudnn."""

import math
import numbers
import os
import sys
import warnings

from minitorch import _C
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn._rnn_packing import PackedSequence, pack_padded_sequence, pad_packed_sequence
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_CUDNN_MODES = {"RNN_RELU": 0, "RNN_TANH": 1, "LSTM": 2, "GRU": 3}
_CUDNN_DTYPES = (_C.float16, _C.float32, _C.float64)

# The cuDNN path is on by default (as PyTorch's): tests/ops/rnn/test_rnn_cudnn.py passed on an H200 and it ran 9-33x
# faster than the composite path there (docs/gpu-report.md, 2026-12-04). MINITORCH_CUDNN_RNN=0 turns it off;
# assign minitorch.nn.modules.rnn.cudnn_rnn_enabled at run time to compare both paths.
cudnn_rnn_enabled = os.environ.get("MINITORCH_CUDNN_RNN", "1") != "0"
# The CPU's fused LSTM (oneDNN) is on by default too: 15-60x faster than the composite path at one thread
# (benchmarks/README.md, twelfth session) and within float32 rounding of it (tests/ops/rnn/test_rnn_onednn.py).
# torch.backends.mkldnn.enabled = False turns it off, as in PyTorch; so do MINITORCH_ONEDNN_RNN=0 and
# minitorch.nn.modules.rnn.onednn_rnn_enabled = False.
onednn_rnn_enabled = os.environ.get("MINITORCH_ONEDNN_RNN", "1") != "0"


def _use_onednn(mode, x):
    """Whether oneDNN's LSTM takes a CPU call: float32 LSTM (oneDNN has no float64 RNN, and GRU/RNN are at
    parity with PyTorch's own CPU loops), torch.backends.mkldnn.enabled, a build with oneDNN, no CPU autocast."""
    return (
        onednn_rnn_enabled
        and mode == "LSTM"
        and x.dtype == _C.float32
        and _C._get_mkldnn_enabled()
        and _C._has_onednn_rnn()
        and not _C._is_autocast_enabled("cpu")
    )


def _use_cudnn(mode, x, h0, c0, weights, proj, dropout, train, num_layers):
    """Whether the fused op takes this call: a non-empty time-major input whose states and weights share its
    device and dtype, on CUDA (float16/32/64, torch.backends.cudnn.enabled, a build with cuDNN's RNN) or on
    the CPU (see _use_onednn), no projection, no dropout between layers in training on CUDA (the CPU runs
    such a call layer by layer) and no autocast region (the composite path's ops have the autocast policies).
    Packed sequences never get here."""
    if x.is_cuda:
        if not (cudnn_rnn_enabled and _C._get_cudnn_flags()[0] and _C._has_cudnn_rnn()):
            return False
        if x.dtype not in _CUDNN_DTYPES or _C._is_autocast_enabled("cuda"):
            return False
    elif x.device.type != "cpu" or not _use_onednn(mode, x):
        return False
    if x.numel() == 0:
        return False
    if proj:
        return False
    if dropout > 0 and train and num_layers > 1 and x.is_cuda:
        return False  # on the CPU such a call runs the fused op layer by layer (_fused_by_layer)
    for t in [h0, c0, *weights]:
        if t is not None and (t.device != x.device or t.dtype != x.dtype):
            return False
    # a transform's tensors (vmap's BatchedTensors, forward AD's duals) and a Tensor subclass's (types whose
    # __torch_function__ takes part: not Tensor's, Parameter's) take the composite path, whose ops have batching
    # and forward rules and hand back the subclass; the fused op would refuse them
    return not any(
        type(t) is not _C.Tensor
        and getattr(type(t), "__torch_function__", None) not in (None, _C._disabled_torch_function_impl)
        for t in [x, h0, c0, *weights]
    )


def _torch():
    """The public namespace, read at call time: its cat and stack are the builtins outside a transform and their
    dispatching spellings inside one, so the recurrence runs on vmap's BatchedTensors and forward AD's duals
    (each step batched or differentiated by its ops' rules) where _C's builtins would refuse them."""
    return sys.modules["minitorch"]


def _lstm_cell(gi, h, c, w_hh, b_hh):
    g = gi + F.linear(h, w_hh, b_hh)
    i, f, gg, o = g.chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * gg.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_cell(gi, h, w_hh, b_hh):
    gh = F.linear(h, w_hh, b_hh)
    ir, iz, inn = gi.chunk(3, -1)
    hr, hz, hn = gh.chunk(3, -1)
    r = (ir + hr).sigmoid()
    z = (iz + hz).sigmoid()
    n = (inn + r * hn).tanh()
    return n + z * (h - n)


def _rnn_cell(gi, h, w_hh, b_hh, relu):
    g = gi + F.linear(h, w_hh, b_hh)
    return g.relu() if relu else g.tanh()


def _recurrence(mode, x, batch_sizes, h0, c0, weights, bias, num_layers, bidirectional, dropout, train, proj):
    """x: [T, N, F] time-major padded (packed inputs are padded first, batch_sizes tells the active
    rows per step); weights: per layer and direction, [w_ih, w_hh] + [b_ih, b_hh] with bias + [w_hr] with proj.
    Returns (output [T, N, D*H], h_n, c_n or None)."""
    T = x.shape[0]
    D = 2 if bidirectional else 1
    lstm = mode == "LSTM"
    hs, cs = [], []
    layer_in = x
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            w = weights[layer * D + d]
            w_ih, w_hh = w[0], w[1]
            b_ih = w[2] if bias else None
            b_hh = w[3] if bias else None
            w_hr = w[-1] if proj else None
            idx = layer * D + d
            h = h0[idx]
            c = c0[idx] if lstm else None
            gi_all = F.linear(layer_in, w_ih, b_ih)  # [T, N, G]: the whole layer's input projection
            # one unbind, whose backward stacks the T step gradients once; gi_all[t] per step made each
            # step's backward a full-size [T, N, G] zero tensor with one slice filled, then T of those
            # added (an LSTM of 32 steps spent half its backward there)
            gis = gi_all.unbind(0) if T else ()
            steps = range(T - 1, -1, -1) if d == 1 else range(T)
            ys = [None] * T
            for t in steps:
                gi = gis[t]
                bs = None if batch_sizes is None else int(batch_sizes[t])
                hp, cp = (h, c) if bs is None else (h[:bs], None if c is None else c[:bs])
                if bs is not None:
                    gi = gi[:bs]
                if lstm:
                    hn, cn = _lstm_cell(gi, hp, cp, w_hh, b_hh)
                    if w_hr is not None:
                        hn = F.linear(hn, w_hr)
                elif mode == "GRU":
                    hn, cn = _gru_cell(gi, hp, w_hh, b_hh), None
                else:
                    hn, cn = _rnn_cell(gi, hp, w_hh, b_hh, mode == "RNN_RELU"), None
                if bs is not None and bs < h.shape[0]:
                    ys[t] = _torch().cat(
                        [hn, _C.zeros((h.shape[0] - bs, hn.shape[1]), dtype=hn.dtype, device=hn.device)]
                    )
                    h = _torch().cat([hn, h[bs:]])
                    if lstm:
                        c = _torch().cat([cn, c[bs:]])
                else:
                    ys[t] = hn
                    h, c = hn, cn
            hs.append(h)
            if lstm:
                cs.append(c)
            outs.append(
                _torch().stack(ys) if T else _C.zeros((0,) + tuple(h.shape), dtype=h.dtype, device=h.device)
            )
        layer_in = outs[0] if D == 1 else _torch().cat(outs, -1)
        if dropout and train and layer < num_layers - 1:
            layer_in = F.dropout(layer_in, dropout, True)
    return layer_in, _torch().stack(hs), (_torch().stack(cs) if lstm else None)


def _fused_by_layer(mode, x, h0, c0, weights, hidden_size, num_layers, bidirectional, dropout, train):
    """The fused op one layer at a time, with the dropout between layers in training that it does not take
    (oneDNN's RNN has none): each layer's steps stay fused where the composite path ran them one by one
    in Python (a 2-layer LSTM with dropout, as the word language model's, trains ~3x faster), and the
    dropout masks are drawn between the layers, where the composite path draws them."""
    D = 2 if bidirectional else 1
    lstm = mode == "LSTM"
    hs, cs = [], []
    for layer in range(num_layers):
        layer_weights = [t for d in range(D) for t in weights[layer * D + d]]
        rows = slice(layer * D, (layer + 1) * D)
        x, hn, cn, _ = _C._cudnn_rnn(
            x,
            layer_weights,
            h0[rows],
            c0[rows] if lstm else None,
            _CUDNN_MODES[mode],
            hidden_size,
            1,
            False,
            0.0,
            train,
            bidirectional,
        )
        hs.append(hn)
        cs.append(cn)
        if layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    return x, _torch().cat(hs), (_torch().cat(cs) if lstm else None)


def _rnn(
    mode, x, batch_sizes, h0, c0, weights, hidden_size, bias, num_layers, bidirectional, dropout, train, proj
):
    """The layers over time-major x: the fused op where _use_cudnn takes the call, else _recurrence."""
    flat = [t for w in weights for t in w]
    fused = batch_sizes is None and _use_cudnn(mode, x, h0, c0, flat, proj, dropout, train, num_layers)
    if fused and dropout > 0 and train and num_layers > 1:
        return _fused_by_layer(
            mode, x, h0, c0, weights, hidden_size, num_layers, bidirectional, dropout, train
        )
    if fused:
        out, hn, cn, _ = _C._cudnn_rnn(
            x, flat, h0, c0, _CUDNN_MODES[mode], hidden_size, num_layers, False, dropout, train, bidirectional
        )
        return out, hn, cn
    return _recurrence(
        mode, x, batch_sizes, h0, c0, weights, bias, num_layers, bidirectional, dropout, train, proj
    )


def _functional(
    mode, x, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first
):
    """torch.lstm / gru / rnn_tanh / rnn_relu (the weights as a flat list, per layer and direction w_ih, w_hh,
    then b_ih, b_hh with has_biases, then w_hr for an LSTM whose h and c sizes differ, as ATen tells
    projections): (output, h_n[, c_n]); a packed call's x is the packed data and its output the packed data."""
    lstm = mode == "LSTM"
    if lstm:
        if len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        h0, c0 = hx
        proj = h0.size(2) != c0.size(2)
        hidden_size = c0.size(2)
    else:
        h0, c0, proj, hidden_size = hx, None, False, hx.size(2)
    params = list(params)
    per = 2 + 2 * bool(has_biases) + int(proj)
    if len(params) % per:
        raise RuntimeError("got an incorrect number of RNN parameters")
    D = 2 if bidirectional else 1
    if len(params) != num_layers * D * per:
        raise RuntimeError(
            f"got {len(params)} RNN parameters, expected {num_layers * D * per} for {num_layers} layer(s) of "
            f"{D} direction(s)"
        )
    weights = [params[k : k + per] for k in range(0, len(params), per)]
    if batch_sizes is not None:
        padded, _ = pad_packed_sequence(PackedSequence(x, batch_sizes), batch_first=False)
        out, hn, cn = _recurrence(
            mode,
            padded,
            batch_sizes,
            h0,
            c0,
            weights,
            has_biases,
            num_layers,
            bidirectional,
            dropout,
            train,
            proj,
        )
        out = pack_padded_sequence(out, _lengths_from_batch_sizes(batch_sizes), enforce_sorted=True).data
    else:
        if x.dim() != 3:  # (ATen fails inside its loop, each rank in its own words)
            raise RuntimeError(f"input must have 3 dimensions, got {x.dim()}")
        if batch_first:
            x = x.transpose(0, 1)
        if x.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        out, hn, cn = _rnn(
            mode,
            x,
            None,
            h0,
            c0,
            weights,
            hidden_size,
            has_biases,
            num_layers,
            bidirectional,
            dropout,
            train,
            proj,
        )
        if batch_first:
            out = out.transpose(0, 1)
    return (out, hn, cn) if lstm else (out, hn)


class RNNBase(Module):
    def __init__(
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        # PyTorch multiplies only for the gated modes: a plain RNN keeps hidden_size as given (a bool stays one)
        gate_size = hidden_size if _GATES[mode] == 1 else _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        kw = {"device": device, "dtype": dtype}
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                sfx = "_reverse" if direction == 1 else ""
                params = [
                    (f"weight_ih_l{layer}{sfx}", (gate_size, layer_input)),
                    (f"weight_hh_l{layer}{sfx}", (gate_size, real_hidden)),
                ]
                if bias:
                    params += [
                        (f"bias_ih_l{layer}{sfx}", (gate_size,)),
                        (f"bias_hh_l{layer}{sfx}", (gate_size,)),
                    ]
                if proj_size > 0:
                    params.append((f"weight_hr_l{layer}{sfx}", (proj_size, hidden_size)))
                for name, shape in params:
                    setattr(self, name, Parameter(_C.empty(shape, **kw)))
                self._flat_weights_names.extend(n for n, _ in params)
                self._all_weights.append([n for n, _ in params])
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        pass  # no cuDNN packed-weight buffer here: weights are used as they are

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ---- checks with PyTorch's messages
    def check_input(self, input, batch_sizes):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). Convert input: "
                f"input.to({w.dtype}), or convert model: model.to({input.dtype})"
            )
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        h = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, h)

    def check_hidden_size(self, hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != tuple(expected):
            raise RuntimeError(msg.format(tuple(expected), list(hx.shape)))

    def _forward(self, input, hx, name):
        packed = isinstance(input, PackedSequence)
        lstm = self.mode == "LSTM"
        if packed:
            batch_sizes = input.batch_sizes
            self.check_input(input.data, batch_sizes)
            x, _ = pad_packed_sequence(PackedSequence(input.data, batch_sizes), batch_first=False)
            is_batched = True
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                tail = "D tensor instead" if name == "RNN" else "D instead"
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}{tail}")
            is_batched = input.dim() == 3
            x = input if is_batched else input.unsqueeze(1 if not self.batch_first else 0)
            if self.batch_first:
                x = x.transpose(0, 1)
        N = x.shape[1]
        D = 2 if self.bidirectional else 1
        hsize = self.proj_size if self.proj_size > 0 else self.hidden_size
        kw = {"dtype": x.dtype, "device": x.device}
        if hx is None:
            if not packed:
                self.check_input(x, None)
            h0 = _C.zeros((self.num_layers * D, N, hsize), **kw)
            c0 = _C.zeros((self.num_layers * D, N, self.hidden_size), **kw) if lstm else None
        else:
            if lstm:
                if not packed:  # PyTorch indexes hx[0] and hx[1] for this check, before anything unpacks hx
                    want = 3 if is_batched else 2
                    d0, d1 = hx[0].dim(), hx[1].dim()
                    if d0 != want or d1 != want:
                        kind = "batched 3-D" if is_batched else "unbatched 2-D"
                        raise RuntimeError(
                            f"For {kind} input, hx and cx should also be {want}-D but got ({d0}-D, {d1}-D) tensors"
                        )
                h0, c0 = hx
                if not packed:
                    if not is_batched:
                        h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
                    self.check_input(x, None)  # PyTorch's check_forward_args, after hx's dims
                exp = (self.num_layers * D, N, hsize)
                self.check_hidden_size(h0, exp, "Expected hidden[0] size {}, got {}")
                self.check_hidden_size(
                    c0, (self.num_layers * D, N, self.hidden_size), "Expected hidden[1] size {}, got {}"
                )
            else:
                h0, c0 = hx, None
                if not packed:
                    want = 3 if is_batched else 2
                    if h0.dim() != want:
                        kind = "batched 3-D" if is_batched else "unbatched 2-D"
                        raise RuntimeError(
                            f"For {kind} input, hx should also be {want}-D but got {h0.dim()}-D tensor"
                        )
                    if not is_batched:
                        h0 = h0.unsqueeze(1)
                    self.check_input(x, None)
                self.check_hidden_size(h0, (self.num_layers * D, N, hsize))
            if packed and input.sorted_indices is not None:
                h0 = h0.index_select(1, input.sorted_indices)
                if c0 is not None:
                    c0 = c0.index_select(1, input.sorted_indices)
        if not packed and x.shape[0] == 0:  # PyTorch's check, after the hidden-state ones
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        weights = [[getattr(self, n) for n in names] for names in self._all_weights]
        out, hn, cn = _rnn(
            self.mode,
            x,
            batch_sizes,
            h0,
            c0,
            weights,
            self.hidden_size,
            self.bias,
            self.num_layers,
            self.bidirectional,
            self.dropout,
            self.training,
            self.proj_size > 0,
        )
        if packed:
            lengths = _lengths_from_batch_sizes(batch_sizes)
            data = pack_padded_sequence(out, lengths, enforce_sorted=True).data
            output = PackedSequence(data, batch_sizes, input.sorted_indices, input.unsorted_indices)
            if input.unsorted_indices is not None:
                hn = hn.index_select(1, input.unsorted_indices)
                if cn is not None:
                    cn = cn.index_select(1, input.unsorted_indices)
        else:
            output = out.transpose(0, 1) if self.batch_first else out
            if not is_batched:
                output = output.squeeze(1 if not self.batch_first else 0)
                hn = hn.squeeze(1)
                if cn is not None:
                    cn = cn.squeeze(1)
        return output, ((hn, cn) if lstm else hn)


def _lengths_from_batch_sizes(batch_sizes):
    bs = [int(b) for b in batch_sizes]
    n = bs[0] if bs else 0
    return [sum(1 for b in bs if b > i) for i in range(n)]


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "RNN")


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "LSTM")


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "GRU")


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_C.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(_C.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(_C.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(_C.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    @staticmethod
    def _check_ranks(input, hx, name, n_states):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for h in hx if n_states == 2 and hx is not None else [hx]:
            if h is not None and h.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {h.dim()}D instead")

    def _prepare(self, input, hx, name, n_states):
        self._check_ranks(input, hx, name, n_states)
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if x.size(1) != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {x.size(1)} expected {self.input_size}"
            )
        kw = {"dtype": x.dtype, "device": x.device}
        if hx is None:
            z = _C.zeros((x.size(0), self.hidden_size), **kw)
            states = [z] * n_states
        else:
            states = list(hx) if n_states == 2 else [hx]
            states = [s if batched else s.unsqueeze(0) for s in states]
        for i, s in enumerate(states):
            if s.size(0) != x.size(0):
                raise RuntimeError(
                    f"Input batch size {x.size(0)} doesn't match hidden{i} batch size {s.size(0)}"
                )
            if s.size(1) != self.hidden_size:
                raise RuntimeError(
                    f"hidden{i} has inconsistent hidden_size: got {s.size(1)}, expected {self.hidden_size}"
                )
        return x, states, batched


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        # PyTorch's order: the rank checks, then the nonlinearity (before the cell kernel's size checks)
        self._check_ranks(input, hx, "RNNCell", 1)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        x, (h,), batched = self._prepare(input, hx, "RNNCell", 1)
        out = _rnn_cell(
            F.linear(x, self.weight_ih, self.bias_ih),
            h,
            self.weight_hh,
            self.bias_hh,
            self.nonlinearity == "relu",
        )
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        x, (h, c), batched = self._prepare(input, hx, "LSTMCell", 2)
        h, c = _lstm_cell(F.linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        x, (h,), batched = self._prepare(input, hx, "GRUCell", 1)
        out = _gru_cell(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)
