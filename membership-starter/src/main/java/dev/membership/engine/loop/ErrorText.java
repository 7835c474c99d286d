package dev.membership.engine.loop;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * What the run history keeps of an error, for whoever may read it: the exception's class
 * and, unless only the class is kept ({@code membership.history.error-detail=class}), the
 * first line of its message with credentials taken out ({@code user:password@} in URIs,
 * the values of {@code password=}, {@code secret=}, {@code token=} and their like,
 * {@code Bearer} and {@code Basic} credentials), at most {@value #MAX_LENGTH} characters
 * in all. The node's {@code lastError} (health, status) is cleaned the same way.
 */
public final class ErrorText {

	static final int MAX_LENGTH = 300;

	static final String HIDDEN = "***";

	/**
	 * A URI's user information, to the first {@code @}: {@code mongodb://user:pa/ss@host}
	 * (hiding too much is fine).
	 */
	private static final Pattern USER_INFO = Pattern.compile("(?<=://)\\S*?@");

	/**
	 * A secret's name, how it is given ({@code =}, {@code :}, quoted or not), and its
	 * value, quoted or not.
	 */
	private static final Pattern SECRET = Pattern.compile("(?i)(password|passwd|pwd|secret|token|api[-_]?key|"
			+ "access[-_]?key|credentials?)([\"']?\\s*[=:]\\s*)(\"[^\"]*\"|'[^']*'|[^\\s&;,\"'}]+)");

	/**
	 * An HTTP credential: {@code Bearer eyJ...}, {@code Basic dXNlcjpwYXNz} (not the word
	 * "basic" in a sentence).
	 */
	private static final Pattern SCHEME = Pattern.compile("\\b(Bearer|Basic)\\s+[A-Za-z0-9._~+/=-]{8,}");

	private final boolean messages;

	/**
	 * With {@code messages}, an error's class and its cleaned message; without, its class
	 * only.
	 */
	public ErrorText(boolean messages) {
		this.messages = messages;
	}

	public @Nullable String of(@Nullable Throwable error) {
		if (error == null) {
			return null;
		}
		String type = error.getClass().getSimpleName().isEmpty() ? error.getClass().getName()
				: error.getClass().getSimpleName();
		if (!this.messages || error.getMessage() == null) {
			return cut(type);
		}
		String message = error.getMessage();
		int end = message.indexOf('\n');
		return cut(type + ": " + clean((end >= 0) ? message.substring(0, end) : message));
	}

	/**
	 * {@code text} as one bounded line for a log: control characters (a CR or LF a caller
	 * sent, which would forge a line) as {@code ?}, at most {@value #MAX_LENGTH}
	 * characters.
	 */
	public static String printable(@Nullable String text) {
		String line = (text != null) ? text.replaceAll("\\p{Cntrl}", "?") : "";
		return (line.length() > MAX_LENGTH) ? line.substring(0, MAX_LENGTH) + "..." : line;
	}

	/** {@code text} with credentials taken out. */
	static String clean(String text) {
		String hidden = USER_INFO.matcher(text).replaceAll(HIDDEN + "@");
		hidden = SCHEME.matcher(hidden).replaceAll("$1 " + HIDDEN);
		Matcher secret = SECRET.matcher(hidden);
		StringBuilder out = new StringBuilder(hidden.length());
		while (secret.find()) {
			String value = secret.group(3);
			char first = value.charAt(0);
			String quote = (first == '"' || first == '\'') ? String.valueOf(first) : "";
			secret.appendReplacement(out,
					Matcher.quoteReplacement(secret.group(1) + secret.group(2) + quote + HIDDEN + quote));
		}
		secret.appendTail(out);
		return out.toString();
	}

	public static String cut(String text) {
		return (text.length() > MAX_LENGTH) ? text.substring(0, MAX_LENGTH) : text;
	}

}
