SELECT set_config('hotel.actor', $1, true)
