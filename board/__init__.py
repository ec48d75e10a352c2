"""A tournament: tables publish their matches to an MQTT broker; ``hakam board`` shows them."""
