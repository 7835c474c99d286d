package dev.membership.architecture.breach.root;

import dev.membership.BreachAtTheRoot;

/** A breach: imports back the root package that imports it. */
public final class BelowTheRoot {

	BreachAtTheRoot above;

}
