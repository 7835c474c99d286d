package dev.membership.architecture.breach;

/** A breach: a case change that the default locale decides. */
final class ChangesCaseWithoutALocale {

	String tag(Enum<?> outcome) {
		return outcome.name().toLowerCase();
	}

}
