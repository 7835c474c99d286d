package dev.membership.testsupport;

import java.time.Instant;
import java.util.Optional;

import dev.membership.store.LeaseRecord;
import dev.membership.store.MembershipStore;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/** A store for one node, just enough to lead: an application's own, with no database (and no MongoDB type) behind it. */
public final class OneNodeStore {

	private OneNodeStore() {
	}

	public static MembershipStore create() {
		MembershipStore store = mock(MembershipStore.class);
		when(store.serverTime()).thenAnswer((call) -> Instant.now());
		when(store.tryAcquire(any(), any(), any(), any())).thenAnswer((call) -> Optional.of(new LeaseRecord(
				call.getArgument(0), call.getArgument(1), 1, call.getArgument(3), Instant.now())));
		when(store.renew(any(), any(), anyLong(), any())).thenReturn(true);
		return store;
	}

}
