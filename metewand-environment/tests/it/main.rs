//! The Python environment reader against environments the tests make: nothing downloaded, nothing of the
//! environment run.

#![allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]

mod python;
