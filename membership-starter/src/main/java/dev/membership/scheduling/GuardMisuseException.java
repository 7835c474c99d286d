package dev.membership.scheduling;

/**
 * A guard annotation ({@code @LeaderOnly}, {@code @ForEachOwnedPartition}) that cannot do
 * what it says where it is: fails startup, naming the method and the fix, instead of a
 * method that silently never runs (or runs everywhere).
 */
class GuardMisuseException extends IllegalStateException {

	private final String description;

	private final String action;

	GuardMisuseException(String description, String action) {
		super(description + " " + action);
		this.description = description;
		this.action = action;
	}

	String description() {
		return this.description;
	}

	String action() {
		return this.action;
	}

}
