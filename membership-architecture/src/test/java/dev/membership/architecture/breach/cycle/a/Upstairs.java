package dev.membership.architecture.breach.cycle.a;

import dev.membership.architecture.breach.cycle.b.Downstairs;

/** A breach: imports a package that imports this one back. */
public final class Upstairs {

	Downstairs below;

}
