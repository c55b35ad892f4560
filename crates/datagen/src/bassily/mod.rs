//! Bassily et al. private-SCO families (to be filled).
