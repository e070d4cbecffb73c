"""Checking random generators: chi-square over buckets, mean and variance bounds.

Lesson: 02-ndarray-and-context (random numbers).  Mirrors ``gen_buckets_probs_with_ppf``,
``chi_square_check``, ``verify_generator``, ``mean_check`` and ``var_check`` of
``python/mxnet/test_utils.py``.  ``generator(n)`` returns n samples (a numpy array);
``buckets`` are ``(low, high)`` intervals of a continuous distribution or the values of
a discrete one.  The chi-square test needs SciPy.
"""
import math

import numpy as np

__all__ = ["gen_buckets_probs_with_ppf", "chi_square_check", "verify_generator", "mean_check",
           "var_check"]


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` equally likely intervals from a distribution's inverse CDF ``ppf``."""
    edges = [ppf(i / nbuckets) for i in range(nbuckets + 1)]
    return [(edges[i], edges[i + 1]) for i in range(nbuckets)], [1.0 / nbuckets] * nbuckets


def _counts(samples, buckets):
    samples = np.asarray(samples).ravel()
    if isinstance(buckets[0], (tuple, list)):
        return np.array([np.count_nonzero((samples >= low) & (samples < high))
                         for low, high in buckets])
    return np.array([np.count_nonzero(samples == value) for value in buckets])


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """(p-value, observed counts, expected counts) of ``nsamples`` draws."""
    try:
        from scipy import stats
    except ImportError as error:
        raise ImportError("chi_square_check needs SciPy (pip install scipy)") from error
    samples = generator(nsamples)
    observed = _counts(samples, buckets)
    expected = np.asarray(probs) * nsamples
    _, p_value = stats.chisquare(f_obs=observed, f_exp=expected)
    return p_value, observed, expected


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5,
                     success_rate=0.2, alpha=0.05):
    """Repeat the chi-square check ``nrepeat`` times; at least ``success_rate`` of them
    must keep the hypothesis (p > ``alpha``).  Returns the p-values."""
    results = [chi_square_check(generator, buckets, probs, nsamples)[0]
               for _ in range(nrepeat)]
    passed = sum(p > alpha for p in results)
    if passed < nrepeat * success_rate:
        raise AssertionError(f"the generator fails the chi-square test: p-values {results}, "
                             f"{passed} of {nrepeat} above {alpha}")
    return results


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the sample mean is within three standard errors of ``mu``."""
    mean = float(np.mean(generator(nsamples)))
    bound = 3 * sigma / math.sqrt(nsamples)
    return mu - bound < mean < mu + bound


def var_check(generator, sigma, nsamples=1000000):
    """Whether the sample variance is within three standard errors of ``sigma**2``."""
    variance = float(np.var(generator(nsamples), ddof=1))
    bound = 3 * math.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return sigma ** 2 - bound < variance < sigma ** 2 + bound
