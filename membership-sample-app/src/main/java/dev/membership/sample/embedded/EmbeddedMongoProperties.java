package dev.membership.sample.embedded;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The sample's embedded test database (mongo-java-server with its H2 file backend).
 *
 * @param enabled whether to start (or join) the embedded test database; unset means "when
 * no MongoDB URI is configured"
 * @param port port of the embedded test database, on 127.0.0.1
 * @param directory where the embedded test database keeps its H2 file
 * @param database database name used on the embedded test database
 * @param standalone run only the embedded test database (no membership, no web server)
 * until stopped
 */
@ConfigurationProperties("sample.embedded-mongo")
public record EmbeddedMongoProperties(Boolean enabled, @DefaultValue("27017") int port,
		@DefaultValue("target/embedded-mongo") String directory, @DefaultValue("membership-sample") String database,
		@DefaultValue("false") boolean standalone) {
}
