package dev.membership.bench.support;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Order statistics of a sample, nearest-rank. */
public final class Stats {

	private final List<Double> sorted;

	public Stats(List<Double> values) {
		this.sorted = new ArrayList<>(values);
		Collections.sort(this.sorted);
	}

	public int count() {
		return this.sorted.size();
	}

	public double percentile(double p) {
		if (this.sorted.isEmpty()) {
			return Double.NaN;
		}
		int rank = (int) Math.ceil(p / 100.0 * this.sorted.size());
		return this.sorted.get(Math.max(0, Math.min(this.sorted.size() - 1, rank - 1)));
	}

	public double median() {
		return percentile(50);
	}

	public double min() {
		return this.sorted.isEmpty() ? Double.NaN : this.sorted.get(0);
	}

	public double max() {
		return this.sorted.isEmpty() ? Double.NaN : this.sorted.get(this.sorted.size() - 1);
	}

}
