//! One line's posterior held to brute force: weighted enumeration of every coloring, buffers
//! reused across lines, lines whose arrangements weigh far below the smallest double.

use super::line::{line_posterior, power_of_two, split, Scratch};
use crate::clue::Block;
use crate::line::tests::{clue_of, matches, pseudo_random};

/// Every coloring of `n` cells over `colors` colors.
fn all_lines(n: usize, colors: usize) -> Vec<Vec<u8>> {
    (0..colors.pow(n as u32))
        .map(|mut code| {
            (0..n)
                .map(|_| {
                    let c = (code % colors) as u8;
                    code /= colors;
                    c
                })
                .collect()
        })
        .collect()
}

#[test]
fn posteriors_match_weighted_enumeration() {
    let mut seed = 12345u64;
    // One scratch and one starts table for all the cases: what a line leaves in them must
    // not leak into the next line's posterior.
    let mut scratch = Scratch::default();
    let mut starts = Vec::new();
    for case in 0..400 {
        let colors = 2 + case % 2;
        let n = 1 + (pseudo_random(&mut seed) as usize) % 7;
        let picture: Vec<u8> = (0..n)
            .map(|_| (pseudo_random(&mut seed) % colors as u64) as u8)
            .collect();
        let clue: Vec<Block> = clue_of(&picture, false, &mut seed);
        // Random positive likelihoods, with some colors ruled out (never the picture's).
        let mut probability = vec![0.0; n * colors];
        for i in 0..n {
            for c in 0..colors {
                let ruled_out =
                    pseudo_random(&mut seed).is_multiple_of(5) && usize::from(picture[i]) != c;
                probability[i * colors + c] = if ruled_out {
                    0.0
                } else {
                    0.05 + (pseudo_random(&mut seed) % 100) as f64 / 100.0
                };
            }
        }
        assert!(
            line_posterior(
                n,
                colors,
                &probability,
                &clue,
                &mut scratch,
                Some(&mut starts)
            ),
            "the picture fits"
        );
        let posterior = &scratch.posterior;
        let mut expected = vec![0.0; n * colors];
        let mut total = 0.0;
        for line in all_lines(n, colors) {
            if !matches(&line, &clue) {
                continue;
            }
            let weight: f64 = line
                .iter()
                .enumerate()
                .map(|(i, &c)| probability[i * colors + usize::from(c)])
                .product();
            total += weight;
            for (i, &c) in line.iter().enumerate() {
                expected[i * colors + usize::from(c)] += weight;
            }
        }
        for (got, want) in posterior.iter().zip(&expected) {
            assert!(
                (got - want / total).abs() < 1e-9,
                "case {case}: {posterior:?} against {expected:?} / {total}"
            );
        }
        for distribution in &starts {
            let sum: f64 = distribution.iter().sum();
            assert!(
                (sum - 1.0).abs() < 1e-9,
                "case {case}: a block's starts sum to {sum}"
            );
        }
    }
}

#[test]
fn numbers_split_into_mantissa_and_power_of_two() {
    for value in [
        1.0,
        1.5,
        3.0,
        0.1,
        1e-300,
        5e-324,
        2.2e-308,
        1e300,
        f64::MAX,
    ] {
        let (mantissa, exponent) = split(value);
        assert!((1.0..2.0).contains(&mantissa), "{value}: {mantissa}");
        let back = if exponent < -1000 {
            mantissa * power_of_two(exponent + 64) / power_of_two(64)
        } else {
            mantissa * power_of_two(exponent)
        };
        assert_eq!(back, value, "{value}: {mantissa} * 2^{exponent}");
    }
    assert_eq!(split(0.0), (0.0, 0));
    assert_eq!(power_of_two(-1075), 0.0);
    assert_eq!(power_of_two(1024), f64::INFINITY);
}

#[test]
fn long_lines_of_unlikely_cells_do_not_underflow() {
    // 600 cells, each 1e-3 likely in either color: every arrangement weighs 1e-1800,
    // far below the smallest double; by symmetry each start of the one block is as likely.
    for (n, length) in [(600, 1), (600, 7), (1000, 400)] {
        let weights = vec![1e-3; n * 2];
        let clue = [Block { length, color: 1 }];
        let mut scratch = Scratch::default();
        let mut starts = Vec::new();
        assert!(
            line_posterior(n, 2, &weights, &clue, &mut scratch, Some(&mut starts)),
            "an arrangement weighs something"
        );
        let posterior = &scratch.posterior;
        let places = (n - length as usize + 1) as f64;
        for (p, share) in starts[0].iter().enumerate() {
            let want = if p + length as usize <= n {
                1.0 / places
            } else {
                0.0
            };
            assert!(
                (share - want).abs() < 1e-9,
                "n {n}: start {p} {share} against {want}"
            );
        }
        let middle = n / 2;
        let covered = (length as f64).min(places) / places;
        assert!((posterior[middle * 2 + 1] - covered).abs() < 1e-9);
    }
}
