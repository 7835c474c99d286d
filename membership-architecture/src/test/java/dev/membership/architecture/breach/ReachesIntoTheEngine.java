package dev.membership.architecture.breach;

import dev.membership.engine.term.Term;

/** A breach: code outside the engine that uses one of its rooms. */
final class ReachesIntoTheEngine {

	boolean valid(Term term) {
		return term.isValid();
	}

}
