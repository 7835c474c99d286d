package dev.membership.leadership.breach;

import dev.membership.spi.MembershipStore;

/** A breach: the API naming the SPI. */
public interface ApiNamesTheSpi {

	MembershipStore store();

}
