package dev.membership.mongo.breach;

import dev.membership.engine.clock.ServerClock;

/** A breach: a store that leans on the engine rather than the SPI. */
final class StoreUsesTheEngine {

	ServerClock clock;

}
