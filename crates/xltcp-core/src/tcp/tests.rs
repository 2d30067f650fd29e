//! Scripted segment-by-segment tests.
