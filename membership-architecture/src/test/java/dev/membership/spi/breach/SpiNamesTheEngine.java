package dev.membership.spi.breach;

import dev.membership.engine.MembershipNode;

/** A breach: the SPI naming what implements it. */
public interface SpiNamesTheEngine {

	MembershipNode node();

}
