package dev.membership.sample.security;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The sample's one operator, who may steer the cluster
 * ({@code POST /actuator/cluster/<action>}) over HTTP Basic.
 *
 * @param name the operator's user name
 * @param password the operator's password; unset, the sample makes one up at startup and
 * logs it
 */
@ConfigurationProperties("sample.operator")
public record OperatorProperties(@Nullable String name, @Nullable String password) {

	public OperatorProperties {
		name = (name != null && !name.isBlank()) ? name : "operator";
	}

	@Override
	public String toString() {
		return "OperatorProperties[name=" + this.name + ", password=" + ((this.password != null) ? "***" : null) + "]";
	}

}
