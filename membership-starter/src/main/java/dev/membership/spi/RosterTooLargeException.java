package dev.membership.spi;

/**
 * The store cannot hold a roster of this many members: it was not written. Every node
 * keeps the last roster it read, so member lists stop changing; leadership, leases and
 * fencing do not read the roster and go on.
 */
public class RosterTooLargeException extends StoreException {

	public RosterTooLargeException(int members, long bytes, long limit) {
		super("A roster of " + members + " members takes " + bytes + " bytes, more than the " + limit + " bytes one "
				+ "roster document may take: it is not written, so member lists stop changing until fewer nodes run "
				+ "(leadership, leases and fencing are unaffected)", null);
	}

}
