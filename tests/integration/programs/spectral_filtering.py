# Spectral image and signal processing with torch.fft and complex tensors, as the FFT-convolution recipes
# (and PyTorch's torch.fft documentation examples) do: FFT convolution of images with rfft2/irfft2 checked against
# F.conv2d with circular padding, a Gaussian low-pass filter built from fftfreq and applied by complex
# multiplication, fftshift'd spectra, Wiener deconvolution of a blurred noisy image, a filter learned by gradient
# descent through rfft2/irfft2 (complex parameters, torch.view_as_complex), phase and magnitude with
# torch.polar/angle/abs, Parseval's identity, and STFT denoising of a chirp by spectral gating with stft/istft.
# Synthetic images and signals in place of downloads.
import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def smooth_image(n=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    img = torch.zeros(n, n)
    yy, xx = torch.meshgrid(
        torch.arange(n, dtype=torch.float32), torch.arange(n, dtype=torch.float32), indexing="ij"
    )
    for _ in range(6):
        cy, cx, r = (torch.rand(3, generator=g) * torch.tensor([n, n, n / 4])).tolist()
        img += ((yy - cy) ** 2 + (xx - cx) ** 2 < (r + 2) ** 2).float() * torch.rand(1, generator=g).item()
    return img


img = smooth_image()
H, W = img.shape

# ---- FFT convolution == circular convolution (F.conv2d on a circularly padded image, kernel flipped)
kernel = torch.randn(5, 5)
padded_kernel = torch.zeros(H, W)
padded_kernel[:5, :5] = kernel
padded_kernel = torch.roll(padded_kernel, shifts=(-2, -2), dims=(0, 1))  # center the kernel at (0, 0)
fft_conv = torch.fft.irfft2(torch.fft.rfft2(img) * torch.fft.rfft2(padded_kernel), s=(H, W))
direct = F.conv2d(F.pad(img[None, None], (2, 2, 2, 2), mode="circular"), kernel.flip(0, 1)[None, None])[0, 0]
torch.testing.assert_close(fft_conv, direct, atol=1e-4, rtol=1e-4)
print("FFT convolution matches conv2d, max diff", (fft_conv - direct).abs().max().item())

# ---- Gaussian low-pass in the frequency domain
fy = torch.fft.fftfreq(H)[:, None]
fx = torch.fft.rfftfreq(W)[None, :]
sigma = 2.0
lowpass = torch.exp(-2 * math.pi**2 * sigma**2 * (fy**2 + fx**2))  # the transform of a Gaussian of std sigma
spectrum = torch.fft.rfft2(img)
assert spectrum.dtype == torch.complex64 and spectrum.shape == (H, W // 2 + 1)
blurred = torch.fft.irfft2(spectrum * lowpass, s=(H, W))
# the same blur by a (circular) spatial Gaussian kernel
r = torch.arange(-8, 9, dtype=torch.float32)
g1 = torch.exp(-(r**2) / (2 * sigma**2))
g1 /= g1.sum()
spatial = F.conv2d(
    F.pad(img[None, None], (8, 8, 8, 8), mode="circular"), (g1[:, None] * g1[None, :])[None, None]
)[0, 0]
torch.testing.assert_close(blurred, spatial, atol=2e-3, rtol=0)
assert blurred.std() < img.std()
# fftshift puts the zero frequency in the middle; the DC term is the image's sum
full = torch.fft.fftshift(torch.fft.fft2(img))
assert torch.isclose(full[H // 2, W // 2].real, img.sum(), rtol=1e-5)
assert abs(full[H // 2, W // 2].imag) < 1e-2
torch.testing.assert_close(torch.fft.ifftshift(full), torch.fft.fft2(img))

# ---- Parseval: sum |x|^2 == sum |X|^2 / N (ortho norm keeps it exactly)
X = torch.fft.fft2(img, norm="ortho")
torch.testing.assert_close((X.abs() ** 2).sum(), (img**2).sum(), rtol=1e-4, atol=0)

# ---- magnitude and phase: polar(abs, angle) rebuilds the spectrum; the phase carries the structure
mag, phase = spectrum.abs(), spectrum.angle()
torch.testing.assert_close(torch.polar(mag, phase), spectrum, rtol=1e-4, atol=1e-3)
other = smooth_image(seed=1)
swap = torch.fft.irfft2(torch.polar(torch.fft.rfft2(other).abs(), phase), s=(H, W))
corr = torch.corrcoef(torch.stack([swap.flatten(), img.flatten(), other.flatten()]))
print("phase-swap correlation with phase source / magnitude source:", corr[0, 1].item(), corr[0, 2].item())
assert corr[0, 1] > corr[0, 2]

# ---- Wiener deconvolution of a blurred, noisy image
noisy = blurred + 0.01 * torch.randn(H, W)
K = lowpass.to(torch.complex64)
snr_inv = 1e-3
wiener = K.conj() / (K.abs() ** 2 + snr_inv)
restored = torch.fft.irfft2(torch.fft.rfft2(noisy) * wiener, s=(H, W))
err_blur = (noisy - img).pow(2).mean().item()
err_restored = (restored - img).pow(2).mean().item()
print(f"MSE blurred {err_blur:.5f}  Wiener-restored {err_restored:.5f}")
assert err_restored < 0.7 * err_blur

# ---- learn a frequency-domain filter by gradient descent: recover the low-pass from (input, output) pairs
imgs = torch.stack([smooth_image(seed=s) for s in range(2, 10)])
targets = torch.fft.irfft2(torch.fft.rfft2(imgs) * lowpass, s=(H, W))
weights = torch.zeros(H, W // 2 + 1, 2)
weights[..., 0] = 1.0
weights.requires_grad_()
opt = torch.optim.Adam([weights], lr=0.05)
for step in range(150):
    opt.zero_grad()
    filt = torch.view_as_complex(weights)
    pred = torch.fft.irfft2(torch.fft.rfft2(imgs) * filt, s=(H, W))
    loss = F.mse_loss(pred, targets)
    loss.backward()
    opt.step()
    if step == 0:
        first = loss.item()
print(f"learned filter: loss {first:.2e} -> {loss.item():.2e}")
assert loss.item() < first / 20
learned = torch.view_as_complex(weights.detach())
strong = lowpass > 0.05  # frequencies where the data determine the filter
assert (learned[strong] - lowpass[strong]).abs().max() < 0.1
assert torch.view_as_real(learned).shape == (H, W // 2 + 1, 2)

# ---- STFT denoising of a chirp: gate the spectrogram below a noise threshold, then istft
sr, T = 4000, 2.0
t = torch.arange(int(sr * T)) / sr
chirp = torch.sin(2 * math.pi * (200 * t + 300 * t**2))
noisy_sig = chirp + 0.3 * torch.randn_like(chirp)
n_fft, hop = 256, 64
window = torch.hann_window(n_fft)
S = torch.stft(noisy_sig, n_fft, hop_length=hop, window=window, return_complex=True)
assert S.shape == (n_fft // 2 + 1, 1 + len(t) // hop) and S.is_complex()
noise_level = torch.stft(
    0.3 * torch.randn_like(chirp), n_fft, hop_length=hop, window=window, return_complex=True
)
threshold = 3 * noise_level.abs().mean()
gated = S * (S.abs() > threshold)
denoised = torch.istft(gated, n_fft, hop_length=hop, window=window, length=len(t))
clean_rt = torch.istft(torch.stft(chirp, n_fft, hop_length=hop, window=window, return_complex=True), n_fft,
                       hop_length=hop, window=window, length=len(t))  # fmt: skip
torch.testing.assert_close(clean_rt, chirp, atol=1e-4, rtol=0)  # stft/istft round trip


def snr(x):
    return 10 * torch.log10(chirp.pow(2).mean() / (x - chirp).pow(2).mean()).item()


print(f"SNR noisy {snr(noisy_sig):.1f} dB, gated {snr(denoised):.1f} dB")
assert snr(denoised) > snr(noisy_sig) + 6
# the instantaneous frequency of the chirp rises: the peak bin per frame goes up over time
peak = S.abs().argmax(0).float()
assert peak[-10:].mean() > peak[:10].mean() + 20
print("spectral_filtering: ok")
