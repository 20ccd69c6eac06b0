module example.com/shop/api

go 1.23

require (
	github.com/jackc/pgx/v5 v5.7.1
	github.com/stripe/stripe-go/v81 v81.0.0
)
