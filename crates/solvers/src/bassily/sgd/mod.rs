//! `A_NSGD`, NSGD on the Moreau envelope, `A_ProxGD` and one-pass SGD (to be filled).
