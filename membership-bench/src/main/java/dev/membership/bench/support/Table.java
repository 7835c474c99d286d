package dev.membership.bench.support;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A Markdown table, printed with aligned columns so it reads well in a terminal and
 * pastes into BENCHMARKS.md.
 */
public final class Table {

	private final String title;

	private final List<String> header;

	private final List<List<String>> rows = new ArrayList<>();

	private final List<String> notes = new ArrayList<>();

	public Table(String title, String... header) {
		this.title = title;
		this.header = List.of(header);
	}

	public Table row(Object... cells) {
		if (cells.length != this.header.size()) {
			throw new IllegalArgumentException("Expected " + this.header.size() + " cells: " + Arrays.toString(cells));
		}
		this.rows.add(Arrays.stream(cells).map(String::valueOf).toList());
		return this;
	}

	public Table note(String note) {
		this.notes.add(note);
		return this;
	}

	public List<List<String>> rows() {
		return this.rows;
	}

	public String title() {
		return this.title;
	}

	public static String ms(double millis) {
		if (Double.isNaN(millis)) {
			return "-";
		}
		return (millis >= 100) ? String.format(Locale.ROOT, "%.0f", millis)
				: String.format(Locale.ROOT, "%.1f", millis);
	}

	public static String num(double value, int decimals) {
		return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
	}

	public String render() {
		int[] widths = new int[this.header.size()];
		for (int i = 0; i < widths.length; i++) {
			widths[i] = this.header.get(i).length();
			for (List<String> row : this.rows) {
				widths[i] = Math.max(widths[i], row.get(i).length());
			}
		}
		StringBuilder out = new StringBuilder("### ").append(this.title).append("\n\n");
		line(out, this.header, widths);
		out.append('|');
		for (int width : widths) {
			out.append(' ').append("-".repeat(width)).append(" |");
		}
		out.append('\n');
		this.rows.forEach((row) -> line(out, row, widths));
		if (!this.notes.isEmpty()) {
			out.append('\n');
			this.notes.forEach((note) -> out.append(note).append('\n'));
		}
		return out.toString();
	}

	private static void line(StringBuilder out, List<String> cells, int[] widths) {
		out.append('|');
		for (int i = 0; i < widths.length; i++) {
			out.append(' ').append(cells.get(i)).append(" ".repeat(widths[i] - cells.get(i).length())).append(" |");
		}
		out.append('\n');
	}

}
