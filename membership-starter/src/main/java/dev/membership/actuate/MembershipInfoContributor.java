package dev.membership.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

import dev.membership.Membership;

/** Adds {@code membership: {nodeId, address, groups}} to {@code /actuator/info}. */
public class MembershipInfoContributor implements InfoContributor {

	private final Membership membership;

	public MembershipInfoContributor(Membership membership) {
		this.membership = membership;
	}

	@Override
	public void contribute(Info.Builder builder) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("nodeId", this.membership.nodeId());
		details.put("address", this.membership.advertisedAddress());
		details.put("groups", new TreeSet<>(this.membership.groups()));
		builder.withDetail("membership", details);
	}

}
