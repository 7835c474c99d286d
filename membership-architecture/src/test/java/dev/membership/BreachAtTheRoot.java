package dev.membership;

import dev.membership.architecture.breach.root.BelowTheRoot;

/** A breach: the root package imports a package that imports it back. */
public final class BreachAtTheRoot {

	BelowTheRoot below;

}
