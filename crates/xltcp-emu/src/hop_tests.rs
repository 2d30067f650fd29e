//! Tests of the hop model.
