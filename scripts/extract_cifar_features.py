#!/usr/bin/env python3
"""Extract CIFAR-10 features for the removal-margin study (Wang-Zhu-Wang, Appendix N).

NOT run in CI (it downloads CIFAR-10 and pretrained weights). A user runs it once,
outside the harness, and points the runner's removal-margin study at the output.

What it reproduces (digest section 5): the paper's Figures 2-3 plot, for a pair of
CIFAR-10 training classes, the normalized SVM margin against the fraction of points
removed. The paper uses classes 1 and 9; we read them 0-indexed as in torchvision
(1 = automobile, 9 = truck; digest [CHECK], erratum E-j), 5000 + 5000 images, and
three inputs:
  vit      ImageNet-pretrained ViT-B/16 (torchvision weights), the 768-d class token
           before the classification head;
  resnet50 ImageNet-pretrained ResNet-50 (torchvision weights), the 2048-d global
           average-pooled features before the final linear layer;
  raw      the 3072 raw pixels scaled to [0, 1] ("no preprocessing").
The paper states neither checkpoint nor layer; these are our documented choices.

Output formats (the runner accepts either):
  HDF5 (--format h5, default): one file with
      /features   float64, shape (n, d), row i = feature vector of image i
      /labels     float64, shape (n,), +1 for the first class, -1 for the second
    and root attributes
      model (str), classes (two ints, 0-indexed), split ("train"),
      n (int), d (int), normalized (bool: rows L2-normalised by this script).
  CSV (--format csv): a header line "label,f0,f1,...,f{d-1}" then one row per image,
    label +1/-1 first, then the d features (written with repr precision).
Rows are NOT normalised unless --normalize is given; the harness L2-normalises
every row itself (dpcore::halfspace::LabelledSample), so both are fine.

Usage:
  python3 scripts/extract_cifar_features.py --model vit --out cifar_1v9_vit.h5
  python3 scripts/extract_cifar_features.py --model raw --format csv --out raw.csv \
      --classes 3 5
Requires: torch, torchvision, numpy, and h5py for HDF5 output.
"""
import argparse
import sys

import numpy as np


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", choices=["vit", "resnet50", "raw"], required=True)
    p.add_argument("--classes", type=int, nargs=2, default=[1, 9], metavar=("POS", "NEG"),
                   help="two 0-indexed CIFAR-10 classes; the first gets label +1")
    p.add_argument("--out", required=True, help="output path (.h5 or .csv)")
    p.add_argument("--format", choices=["h5", "csv"], default="h5")
    p.add_argument("--data-dir", default="./cifar10", help="where torchvision stores CIFAR-10")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--device", default="cuda" if _cuda_available() else "cpu")
    p.add_argument("--normalize", action="store_true", help="L2-normalise rows before writing")
    return p.parse_args()


def _cuda_available():
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False


def build_extractor(name):
    """Returns (module mapping a batch of images to features, preprocessing transform)."""
    import torch
    import torchvision
    from torchvision import transforms

    if name == "raw":
        return (lambda x: x.flatten(1)), transforms.ToTensor()
    if name == "vit":
        weights = torchvision.models.ViT_B_16_Weights.IMAGENET1K_V1
        net = torchvision.models.vit_b_16(weights=weights)
        net.heads = torch.nn.Identity()  # keep the 768-d class token
    else:
        weights = torchvision.models.ResNet50_Weights.IMAGENET1K_V2
        net = torchvision.models.resnet50(weights=weights)
        net.fc = torch.nn.Identity()  # keep the 2048-d pooled features
    net.eval()
    # The weights' own preprocessing: resize to 224, centre crop, ImageNet statistics.
    return net, weights.transforms()


def extract(args):
    import torch
    import torchvision

    pos, neg = args.classes
    if pos == neg or not (0 <= pos < 10 and 0 <= neg < 10):
        sys.exit("--classes needs two different classes in 0..9")
    net, preprocess = build_extractor(args.model)
    data = torchvision.datasets.CIFAR10(args.data_dir, train=True, download=True, transform=preprocess)
    keep = [i for i, t in enumerate(data.targets) if t in (pos, neg)]
    subset = torch.utils.data.Subset(data, keep)
    loader = torch.utils.data.DataLoader(subset, batch_size=args.batch_size, shuffle=False)
    if isinstance(net, torch.nn.Module):
        net = net.to(args.device)
    feats, labels = [], []
    with torch.no_grad():
        for images, targets in loader:
            out = net(images.to(args.device)) if args.model != "raw" else net(images)
            feats.append(out.double().cpu().numpy())
            labels.append(np.where(targets.numpy() == pos, 1.0, -1.0))
    x = np.concatenate(feats)
    y = np.concatenate(labels)
    if args.normalize:
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
    return x, y


def write(args, x, y):
    if args.format == "h5":
        import h5py
        with h5py.File(args.out, "w") as f:
            f.create_dataset("features", data=x.astype(np.float64))
            f.create_dataset("labels", data=y.astype(np.float64))
            f.attrs["model"] = args.model
            f.attrs["classes"] = np.array(args.classes, dtype=np.int64)
            f.attrs["split"] = "train"
            f.attrs["n"] = x.shape[0]
            f.attrs["d"] = x.shape[1]
            f.attrs["normalized"] = bool(args.normalize)
    else:
        header = "label," + ",".join(f"f{j}" for j in range(x.shape[1]))
        np.savetxt(args.out, np.column_stack([y, x]), delimiter=",", header=header, comments="", fmt="%.17g")


def main():
    args = parse_args()
    x, y = extract(args)
    write(args, x, y)
    print(f"wrote {x.shape[0]} x {x.shape[1]} features ({args.model}, classes {args.classes}) to {args.out}")


if __name__ == "__main__":
    main()
