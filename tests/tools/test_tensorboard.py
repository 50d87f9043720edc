"""minitorch.utils.tensorboard.SummaryWriter (issue 33): every kind of record written, then read back with
TensorBoard's own EventAccumulator and checked against NumPy (scalars, histograms, decoded image pixels, audio
samples, text, tensors, PR curves, hyperparameters, graphs, embeddings). Skipped without the tensorboard
package (the optional extra)."""

import glob
import io
import os
import socket
import subprocess
import sys
import wave

import numpy as np
import pytest

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.utils.tensorboard import SummaryWriter

ALL = {"images": 0, "scalars": 0, "histograms": 0, "tensors": 0, "audio": 0}


def load(path):
    ea = EventAccumulator(str(path), size_guidance=ALL)
    ea.Reload()
    return ea


def decode_png(data):
    """(H, W, C) uint8 pixels of a PNG, with Pillow when present, else by inflating unfiltered rows."""
    try:
        from PIL import Image

        return np.asarray(Image.open(io.BytesIO(data)))
    except ImportError:
        import struct
        import zlib

        w, h, _, color = struct.unpack(">IIBB", data[16:26])
        c = {0: 1, 2: 3, 6: 4}[color]
        idat = data[data.index(b"IDAT") + 4 :]
        raw = np.frombuffer(zlib.decompressobj().decompress(idat), np.uint8).reshape(h, 1 + w * c)
        assert not raw[:, 0].any()
        return raw[:, 1:].reshape(h, w, c)


def test_scalars_and_default_log_dir(tmp_path, monkeypatch):
    with SummaryWriter(tmp_path) as w:
        for step, v in enumerate([1.0, 0.5, 0.25]):
            w.add_scalar("loss", minitorch.tensor(v), step)
        w.add_scalar("acc", np.float64(0.75), 7, walltime=123.0)
        w.add_scalar("lr", 3, 0, new_style=True)
        w.add_scalar("lr64", 0.1, 0, new_style=True, double_precision=True)
        with pytest.raises(AssertionError, match="Tensor should contain one element"):
            w.add_scalar("bad", minitorch.ones(2), 0)
    ea = load(tmp_path)
    assert [(e.step, e.value) for e in ea.Scalars("loss")] == [(0, 1.0), (1, 0.5), (2, 0.25)]
    assert [(e.step, e.wall_time, e.value) for e in ea.Scalars("acc")] == [(7, 123.0, 0.75)]
    lr = ea.Tensors("lr")[0].tensor_proto
    assert list(lr.float_val) == [3.0] and ea.SummaryMetadata("lr").plugin_data.plugin_name == "scalars"
    assert list(ea.Tensors("lr64")[0].tensor_proto.double_val) == [0.1]
    # the default directory: runs/<Mon DD_HH-MM-SS>_<hostname><comment>
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1")
    w.close()
    (run,) = os.listdir(tmp_path / "runs")
    assert run.endswith("_" + socket.gethostname() + "_lr0.1") and w.get_logdir() == os.path.join("runs", run)


def test_add_scalars_writes_one_run_per_tag(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalars("run/loss", {"train": 1.0 / (step + 1), "val": 2.0 / (step + 1)}, step)
    for tag, scale in (("train", 1.0), ("val", 2.0)):
        ea = load(tmp_path / f"run_loss_{tag}")
        assert [e.value for e in ea.Scalars("run/loss")] == pytest.approx([scale, scale / 2, scale / 3])


def test_histograms_against_numpy(tmp_path):
    rng = np.random.default_rng(0)
    vals = rng.normal(size=2000).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("default", minitorch.tensor(vals), 0)
        w.add_histogram("auto", vals, 1, bins="auto")
        w.add_histogram("ten", minitorch.tensor(vals).t(), 2, bins=10, max_bins=3)  # any layout
        w.add_histogram_raw("raw", 0.0, 3.0, 6, 9.0, 17.0, [1.0, 2.0, 3.0], [2, 2, 2], 0)
        with pytest.raises(ValueError, match="The input has no element."):
            w.add_histogram("empty", minitorch.zeros(0), 0)
        with pytest.raises(ValueError, match=r"len\(bucket_limits\) != len\(bucket_counts\)"):
            w.add_histogram_raw("bad", 0, 1, 1, 1, 1, [1.0], [1, 2])
    ea = load(tmp_path)
    v64 = vals.astype(np.float64)
    for tag in ("default", "auto", "ten"):
        h = ea.Histograms(tag)[0].histogram_value
        assert (h.min, h.max, h.num) == (v64.min(), v64.max(), 2000)
        assert h.sum == pytest.approx(v64.sum(), rel=1e-9) and h.sum_squares == pytest.approx(
            v64 @ v64, rel=1e-9
        )
        assert sum(h.bucket) == 2000 and h.bucket[0] == 0  # an empty bucket left of the data
        assert h.bucket_limit[-1] >= v64.max() and len(h.bucket) == len(h.bucket_limit)
    counts, edges = np.histogram(v64, bins="auto")
    h = ea.Histograms("auto")[0].histogram_value
    np.testing.assert_allclose(h.bucket_limit, edges)  # occupied from the first bin on
    np.testing.assert_array_equal(h.bucket[1:], counts)
    counts10, _ = np.histogram(v64, bins=10)
    h = ea.Histograms("ten")[0].histogram_value
    grouped = np.add.reduceat(np.pad(counts10, (0, 2)), [0, 3, 6, 9])
    np.testing.assert_array_equal(h.bucket[1:], grouped[grouped.nonzero()[0][0] :])
    raw = ea.Histograms("raw")[0].histogram_value
    assert list(raw.bucket_limit) == [1.0, 2.0, 3.0] and list(raw.bucket) == [2, 2, 2]


def test_images_in_every_layout(tmp_path):
    rng = np.random.default_rng(1)
    chw = rng.uniform(size=(3, 8, 6)).astype(np.float32)
    hwc_ref = (chw.transpose(1, 2, 0) * 255).clip(0, 255).astype(np.uint8)
    batch = rng.uniform(size=(10, 1, 5, 4)).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_image("chw", minitorch.tensor(chw), 0)
        w.add_image("hwc", minitorch.tensor(chw).permute(1, 2, 0), 0, dataformats="HWC")  # non-contiguous
        w.add_image("u8", minitorch.tensor(hwc_ref).permute(2, 0, 1).contiguous(), 0)
        w.add_image("hw", minitorch.tensor(chw[0]), 0, dataformats="HW")
        w.add_image("rgba", minitorch.tensor(rng.uniform(size=(4, 3, 2)).astype(np.float32)), 0)
        w.add_images("batch", minitorch.tensor(batch), 0)
        w.add_image("clipped", minitorch.tensor([[[2.0, -1.0]]]), 0)
        with pytest.raises(AssertionError, match="size of input tensor and input format are different"):
            w.add_image("bad", minitorch.zeros(3, 4), 0)
        with pytest.raises(AssertionError, match="You can not use the same dimension shorthand twice"):
            w.add_image("bad", minitorch.zeros(3, 4, 4), 0, dataformats="CCW")
    ea = load(tmp_path)

    def pixels(tag):
        e = ea.Images(tag)[0]
        return e, decode_png(e.encoded_image_string)

    for tag in ("chw", "hwc", "u8"):
        e, px = pixels(tag)
        assert (e.width, e.height) == (6, 8)
        np.testing.assert_array_equal(px, hwc_ref)
    _, px = pixels("hw")
    np.testing.assert_array_equal(px, np.repeat(hwc_ref[:, :, :1], 3, axis=2))
    _, px = pixels("rgba")
    assert px.shape == (3, 2, 4)
    # 10 gray images in a grid of 8 per row: 2 rows of 5x4 images, black where there is no image
    e, px = pixels("batch")
    assert (e.height, e.width) == (10, 32)
    ref = (batch * 255).clip(0, 255).astype(np.uint8)[:, 0]
    np.testing.assert_array_equal(px[5:10, 4:8, 1], ref[9])
    np.testing.assert_array_equal(px[0:5, 28:32, 0], ref[7])
    assert not px[5:, 8:].any()
    _, px = pixels("clipped")
    assert px[0, :, 0].tolist() == [255, 0]


def test_image_with_boxes_and_figure(tmp_path):
    pytest.importorskip("PIL")
    with SummaryWriter(tmp_path) as w:
        w.add_image_with_boxes(
            "boxes", minitorch.zeros(3, 20, 20), minitorch.tensor([[2.0, 2.0, 10.0, 12.0]]), 0
        )
        w.add_image_with_boxes(
            "scaled", minitorch.zeros(3, 10, 10), minitorch.tensor([[1.0, 1.0, 5.0, 5.0]]), 0, rescale=2
        )
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            plt = None
        if plt is not None:
            fig = plt.figure(figsize=(2, 1), dpi=50)
            plt.plot([0, 1], [0, 1])
            w.add_figure("fig", fig, 0)
            assert not plt.fignum_exists(fig.number)  # closed after rendering
            figs = [plt.figure(figsize=(1, 1), dpi=20) for _ in range(2)]
            w.add_figure("figs", figs, 0)
    ea = load(tmp_path)
    px = decode_png(ea.Images("boxes")[0].encoded_image_string)
    assert px[2, 2:11, 0].min() == 255 and px[2, 2:11, 1:].max() == 0  # the top edge, red
    assert px[6, 6].max() == 0  # inside the box: untouched
    e = ea.Images("scaled")[0]
    assert decode_png(e.encoded_image_string).shape[:2] == (20, 20)
    if "fig" in ea.Tags()["images"]:
        e = ea.Images("fig")[0]
        assert (e.width, e.height) == (100, 50) and decode_png(e.encoded_image_string).shape == (50, 100, 3)
        assert ea.Images("figs")[0].width == 40  # two 20x20 figures side by side


def test_text_audio_tensor_and_pr_curve(tmp_path):
    rng = np.random.default_rng(2)
    snd = np.sin(np.arange(800) / 7.0) * 1.2  # beyond [-1, 1]: clipped
    labels = rng.integers(0, 2, 200)
    preds = np.clip(labels * 0.6 + rng.uniform(size=200) * 0.4, 0, 1)
    with SummaryWriter(tmp_path) as w:
        w.add_text("note", "lr = **0.1**", 3)
        w.add_audio("snd", minitorch.tensor(snd), 0, sample_rate=8000)
        w.add_tensor("t", minitorch.tensor([[1.5, -2.0], [0.25, 4.0]], dtype=minitorch.float64), 0)
        w.add_tensor("ti", minitorch.arange(4), 0)
        w.add_pr_curve("pr", minitorch.tensor(labels), minitorch.tensor(preds), 0, num_thresholds=11)
        with pytest.raises(ValueError, match="input tensor should be one dimensional"):
            w.add_audio("bad", minitorch.zeros(2, 3), 0)
    ea = load(tmp_path)
    e = ea.Tensors("note/text_summary")[0]
    assert e.step == 3 and e.tensor_proto.string_val == [b"lr = **0.1**"]
    assert ea.SummaryMetadata("note/text_summary").plugin_data.plugin_name == "text"
    a = ea.Audio("snd")[0]
    assert (a.sample_rate, a.length_frames, a.content_type) == (8000, 800, "audio/wav")
    with wave.open(io.BytesIO(a.encoded_audio_string)) as wav:
        pcm = np.frombuffer(wav.readframes(800), "<i2")
    np.testing.assert_array_equal(pcm, (np.clip(snd, -1, 1) * 32767).astype(np.int16))
    t = ea.Tensors("t")[0].tensor_proto
    assert [d.size for d in t.tensor_shape.dim] == [2, 2] and list(t.double_val) == [1.5, -2.0, 0.25, 4.0]
    assert list(ea.Tensors("ti")[0].tensor_proto.int64_val) == [0, 1, 2, 3]
    pr = ea.Tensors("pr")[0].tensor_proto
    data = np.array(pr.float_val).reshape(6, 11)
    tp, fp, tn, fn, precision, recall = data
    # the prediction buckets floor(p * 10) binned over [0, 10] into 11 thresholds; at threshold k the
    # predictions of bin k and above count as positive
    bucket = np.floor(preds * 10).astype(int)
    edges = np.linspace(0, 10, 12)
    which = np.clip(np.searchsorted(edges, bucket, side="right") - 1, 0, 10)
    for k in range(11):
        chosen = which >= k
        assert tp[k] == (chosen & (labels == 1)).sum() and fp[k] == (chosen & (labels == 0)).sum()
        assert tn[k] == fp[0] - fp[k] and fn[k] == tp[0] - tp[k]
    np.testing.assert_allclose(precision, tp / np.maximum(tp + fp, 1e-7), rtol=1e-6)
    np.testing.assert_allclose(recall, tp / np.maximum(tp + fn, 1e-7), rtol=1e-6)


def test_hparams_custom_scalars_and_embedding(tmp_path):
    from tensorboard.plugins.custom_scalar import layout_pb2
    from tensorboard.plugins.hparams import plugin_data_pb2

    with SummaryWriter(tmp_path) as w:
        w.add_hparams(
            {"lr": 0.1, "bs": 16, "opt": "adam", "skip": None}, {"hparam/acc": 0.9}, run_name="trial"
        )
        w.add_custom_scalars({"Loss": {"both": ["Multiline", ["loss/train", "loss/val"]]}})
        w.add_embedding(
            minitorch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
            metadata=["a", "b", "c"],
            label_img=minitorch.zeros(3, 3, 4, 4),
            tag="emb/x",
        )
        with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionary."):
            w.add_hparams([("lr", 0.1)], {})
        with pytest.raises(ValueError, match="value should be one of int, float, str, bool, or torch.Tensor"):
            w.add_hparams({"bad": [1]}, {})
        with pytest.raises(AssertionError, match="#labels should equal with #data points"):
            w.add_embedding(minitorch.zeros(2, 2), metadata=["a"], global_step=1)
    ea = load(tmp_path / "trial")
    assert ea.Scalars("hparam/acc")[0].value == pytest.approx(0.9)
    start = plugin_data_pb2.HParamsPluginData.FromString(
        ea.SummaryMetadata("_hparams_/session_start_info").plugin_data.content
    ).session_start_info
    assert start.hparams["lr"].number_value == 0.1 and start.hparams["opt"].string_value == "adam"
    assert "skip" not in start.hparams
    exp = plugin_data_pb2.HParamsPluginData.FromString(
        ea.SummaryMetadata("_hparams_/experiment").plugin_data.content
    ).experiment
    assert [i.name for i in exp.hparam_infos] == ["lr", "bs", "opt"]
    assert [m.name.tag for m in exp.metric_infos] == ["hparam/acc"]
    ea = load(tmp_path)
    layout = layout_pb2.Layout.FromString(
        ea.Tensors("custom_scalars__config__")[0].tensor_proto.string_val[0]
    )
    assert layout.category[0].title == "Loss" and list(layout.category[0].chart[0].multiline.tag) == [
        "loss/train",
        "loss/val",
    ]
    emb = tmp_path / "00000" / "emb%2fx"
    assert (emb / "tensors.tsv").read_text().split("\n")[:3] == ["1.0\t2.0", "3.0\t4.0", "5.0\t6.0"]
    assert (emb / "metadata.tsv").read_text() == "a\nb\nc\n"
    assert decode_png((emb / "sprite.png").read_bytes()).shape[:2] == (8, 8)
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert 'tensor_name: "emb/x:00000"' in config and "single_image_dim: 4" in config


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.head = nn.Sequential(nn.Linear(2 * 4 * 4, 5), nn.ReLU(), nn.Linear(5, 3))

    def forward(self, x):
        return self.head(F.relu(self.conv(x)).flatten(1)) * 2


def test_add_graph_records_the_dataflow_by_module(tmp_path):
    model = Net()
    model.train()
    with SummaryWriter(tmp_path) as w:
        w.add_graph(model, minitorch.randn(2, 1, 6, 6))
    assert model.training  # put back after the eval-mode trace
    nodes = {n.name: n for n in load(tmp_path).Graph().node}
    inp = nodes["input/input.0"]
    assert inp.op == "IO Node" and [d.size for d in inp.attr["_output_shapes"].list.shape[0].dim] == [
        2,
        1,
        6,
        6,
    ]
    w0 = nodes["Net/Sequential[head]/Linear[0]/weight"]
    assert w0.op == "Parameter" and [d.size for d in w0.attr["_output_shapes"].list.shape[0].dim] == [5, 32]
    conv = next(n for n in nodes.values() if n.name.startswith("Net/Conv2d[conv]/") and n.op != "Parameter")
    assert set(conv.input) == {"input/input.0", "Net/Conv2d[conv]/weight", "Net/Conv2d[conv]/bias"}
    lin0 = next(
        n
        for n in nodes.values()
        if n.name.startswith("Net/Sequential[head]/Linear[0]/") and n.op != "Parameter"
    )
    assert "Net/Sequential[head]/Linear[0]/weight" in lin0.input
    relu = next(n for n in nodes.values() if n.name.startswith("Net/Sequential[head]/ReLU[1]/"))
    assert relu.input == [lin0.name]
    # ops the root module ran itself (relu, flatten, * 2) sit in its scope, feeding and fed by the submodules
    out = nodes["output/output.0"]
    (last,) = out.input
    assert last.startswith("Net/") and last.count("/") == 1 and nodes[last].op == "Mul"
    assert [d.size for d in out.attr["_output_shapes"].list.shape[0].dim] == [2, 3]


def test_add_graph_without_autograd_history_warns(tmp_path):
    model = nn.Embedding(10, 3)
    model.weight.requires_grad_(False)
    with SummaryWriter(tmp_path) as w, pytest.warns(UserWarning, match="no autograd history"):
        w.add_graph(model, minitorch.tensor([1, 2]))
    names = [n.name for n in load(tmp_path).Graph().node]
    assert names == ["input/input.0", "output/output.0"]


def test_flush_close_reopen_and_purge(tmp_path):
    w = SummaryWriter(tmp_path, flush_secs=3600, max_queue=1000)
    w.add_scalar("x", 1.0, 0)
    w.flush()
    assert [e.value for e in load(tmp_path).Scalars("x")] == [1.0]
    w.close()
    w.close()  # a second close does nothing
    w.add_scalar("x", 2.0, 1)  # logging after close opens a new event file
    w.close()
    assert len(glob.glob(str(tmp_path / "events.out.tfevents.*"))) == 2
    assert [e.value for e in load(tmp_path).Scalars("x")] == [1.0, 2.0]
    # a resumed run: purge_step hides the earlier run's events from that step on
    d = tmp_path / "resume"
    with SummaryWriter(d) as w:
        for s in range(5):
            w.add_scalar("y", float(s), s)
    with SummaryWriter(d, purge_step=3) as w:
        w.add_scalar("y", 30.0, 3)
    assert [(e.step, e.value) for e in load(d).Scalars("y")] == [(0, 0.0), (1, 1.0), (2, 2.0), (3, 30.0)]


def test_missing_tensorboard_raises_with_the_install_command(tmp_path):
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "tensorboard.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'tensorboard'\", name='tensorboard')\n"
    )
    code = (
        "import minitorch\n"
        "try:\n"
        "    import minitorch.utils.tensorboard\n"
        "except ModuleNotFoundError as e:\n"
        "    print(type(e).__name__, e.name, '|', e)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(blocker), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run(
        [sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ModuleNotFoundError tensorboard | TensorBoard logging requires TensorBoard")
    assert "pip install tensorboard" in out.stdout
