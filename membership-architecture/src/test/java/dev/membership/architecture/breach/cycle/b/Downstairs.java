package dev.membership.architecture.breach.cycle.b;

import dev.membership.architecture.breach.cycle.a.Upstairs;

/** A breach: imports back the package that imports it. */
public final class Downstairs {

	Upstairs above;

}
